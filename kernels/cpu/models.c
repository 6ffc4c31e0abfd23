/* placeholder */ typedef int placeholder_kernels_cpu_models_c;
