/* placeholder */ typedef int placeholder_kernels_cpu_ops_c;
