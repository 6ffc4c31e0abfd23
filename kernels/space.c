/* placeholder */ typedef int placeholder_kernels_space_c;
