/* placeholder */ typedef int placeholder_kernels_backend_c;
