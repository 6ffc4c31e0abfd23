"""docs/tutorial/matmul.py: one n x n matrix product, two ways, for docs/tutorial.md's first
step (`harness time` times the whole process):  python3 matmul.py numpy|python N"""
import random
import sys


def product_python(a, b):
    """Your implementation: rows of a against the columns of b, in pure Python."""
    cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]


def main():
    impl, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(1)
    a = [[rng.random() for _ in range(n)] for _ in range(n)]
    b = [[rng.random() for _ in range(n)] for _ in range(n)]
    if impl == "numpy":  # the vendor: numpy's BLAS
        import numpy
        numpy.asarray(a) @ numpy.asarray(b)
    elif impl == "python":
        product_python(a, b)
    else:
        sys.exit("matmul.py: impl is numpy or python, not %r" % impl)


if __name__ == "__main__":
    main()
