/* test-stats.c: placeholder */
#include <check.h>
int main(void){return 77;}
