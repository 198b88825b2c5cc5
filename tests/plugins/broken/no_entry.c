/* A library that exports nothing: no entry symbol. */
int no_entry_helper (void);

int
no_entry_helper (void)
{
  return 0;
}
