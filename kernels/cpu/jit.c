/* placeholder */ typedef int placeholder_kernels_cpu_jit_c;
