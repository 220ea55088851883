/*
 * linked: an empty program linked with what pi-llm links (libcurl,
 * json-c), so make bench can tell pi-llm's own startup from the cost of
 * loading those libraries and theirs.
 */
int
main(void)
{
	return 0;
}
