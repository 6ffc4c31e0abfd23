/* hypothesis.c: placeholder until it lands */ typedef int placeholder_harness_hypothesis_c;
