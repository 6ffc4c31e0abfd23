/* placeholder */ typedef int placeholder_kernels_tuner_vendor_c;
