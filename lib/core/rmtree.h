/*
 * rmtree: rm -rf that follows no symbolic link and stays on the file
 * system the named entry is on.  It goes on past what it cannot remove
 * (the rest is left), makes a directory it cannot list listable first
 * (a tool may leave one at mode 0), and stops 4096 levels down.  It
 * neither fails nor prints: what is left can be seen on disk.
 */
#ifndef PI_RMTREE_H
#define PI_RMTREE_H

/* Remove name, relative to the directory at (or AT_FDCWD). */
void rmtree_at(int at, const char *name);

#endif
