/* main.c: the thin entry point; everything else lives in libharness.a */
#include "config.h"

#include <stdio.h>

#include "harness/cli/cmd.h"

int main(int argc, char **argv)
{
	return cmd_main(argc, argv);
}
