/* placeholder */ typedef int placeholder_kernels_tuner_heuristic_c;
