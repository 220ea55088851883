/*
 * retrans: a regular expression as models write it (PCRE or Rust
 * syntax, what rg takes) turned into a POSIX extended one for glibc's
 * regcomp(3).  glibc's ERE already knows \w \W \s \S \b \B \< \> and
 * back-references, but not \d, and it reads \t as 't' and \' as an
 * anchor, so a pattern passed on as it is would quietly mean something
 * else.  No regcomp here: what is syntactically wrong in both dialects
 * (an unmatched '(' or '[') is passed through for regcomp to report in
 * its own words.
 *
 * Outside brackets:
 *   \d \D          [0-9] [^0-9]
 *   \A  \z \Z      ^  $  $
 *   \t \n \r \f \v the character itself
 *   \xHH           that byte (1 to ff), escaped if ERE would read it
 *                  as an operator
 *   \w \W \s \S \b \B \< \> \1..\9, and a '\' before any of
 *                  .[]()*+?{}|^$\   kept as they are
 *   \ and another character that is no letter: that character
 *   (?i) at the very start: dropped, and *icase set to 1
 *   (?:  (?P<name>  (?<name>   a plain '('
 *   {n} {n,} {n,m} {,m} after something they can repeat: kept;
 *                  any other '{' or '}' is matched literally
 * Inside [...]: \d \s \w become 0-9 [:space:] [:alnum:]_, the control
 * and \xHH escapes their character, and an escaped ']', '-' or '^' is
 * moved where POSIX wants it (']' first, '^' not first, '-' last);
 * [:name:] classes are kept and any other escaped character is itself.
 *
 * Refused, with e filled (code "bad_pattern") and NULL returned: any
 * other letter escape (\p, \K, \e, \x without two hex digits or with
 * 00, ...), \D \S \W inside brackets, and any other (?...) group
 * (lookahead, lookbehind, inline flags not at the start).
 *
 * Memory: retrans_ere returns a NUL-terminated string the caller
 * frees.  It cannot run out of room: its buffer is sized from s.
 */
#ifndef PI_RETRANS_H
#define PI_RETRANS_H

struct pi_error;

/* s as an ERE (see above), or NULL with e filled; *icase may be set. */
char *retrans_ere(const char *s, int *icase, struct pi_error *e);

#endif
