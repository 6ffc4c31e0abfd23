/* placeholder */ typedef int placeholder_kernels_cpu_backend_cpu_c;
