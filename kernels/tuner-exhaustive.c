/* placeholder */ typedef int placeholder_kernels_tuner_exhaustive_c;
