/* pi-tool: placeholder while the program is written. */
#include <stdio.h>

int
main(void)
{
	fputs("pi-tool: not written yet\n", stderr);
	return 1;
}
