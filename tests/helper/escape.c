/*
 * escape: try one thing a sandboxed command must not be able to do, and
 * say what happened, for the pi-tool escape suite.
 *
 *   escape WHAT [ARG...]
 *
 * It prints "open" when the attempt worked and "blocked: <reason>" when
 * it did not, and exits 0 either way (1 for bad usage): the test judges
 * the outcome from the host side where it can, and from this line where
 * only the kernel knows.  Written in C so it runs in the sandbox with no
 * interpreter, as any user.
 *
 *   ptrace PID            PTRACE_ATTACH to PID
 *   tiocsti FD TEXT       push TEXT into the terminal input queue of FD
 *   tcp PORT              connect to 127.0.0.1:PORT and send "escape\n"
 *   udp PORT              send "escape\n" to 127.0.0.1:PORT
 *   unix PATH             connect to a pathname unix socket, send a line
 *   abstract NAME         the same for the abstract socket @NAME
 *   keyring               add a key to the session keyring
 *   unshare               unshare(CLONE_NEWUSER) (then NEWNS)
 *   mount                 mount a tmpfs on /mnt
 *   io_uring              io_uring_setup
 *   bpf                   bpf(BPF_PROG_LOAD)
 *   chroot DIR            chroot(DIR), then look for /etc/hostname
 *   sethostname NAME      sethostname(NAME)
 *   caps                  print the effective, permitted, bounding and
 *                         ambient sets, no_new_privs and the uids
 *   fds                   list the open fds beyond 0-2
 *   forks N               fork N children that sleep; print how many
 *                         forks worked; wait for them
 *   alloc MB              allocate and touch MB MiB, printing progress
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

static int
result(int rc, const char *what)
{
	if (rc == -1)
		printf("blocked: %s: %s\n", what, strerror(errno));
	else
		printf("open\n");
	return 0;
}

static int
inet(int type, const char *port)
{
	struct sockaddr_in a;
	int fd;

	if ((fd = socket(AF_INET, type, 0)) == -1)
		return result(-1, "socket");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)atoi(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (type == SOCK_DGRAM)
		return result(sendto(fd, "escape\n", 7, 0,
		    (struct sockaddr *)&a, sizeof(a)) == 7 ? 0 : -1, "sendto");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
		return result(-1, "connect");
	return result(write(fd, "escape\n", 7) == 7 ? 0 : -1, "write");
}

static int
local(const char *name, int abstract)
{
	struct sockaddr_un a;
	socklen_t len;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return result(-1, "socket");
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path + abstract, sizeof(a.sun_path) - 1, "%s", name);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract +
	    strlen(name));
	if (connect(fd, (struct sockaddr *)&a, len) == -1)
		return result(-1, "connect");
	return result(write(fd, "escape\n", 7) == 7 ? 0 : -1, "write");
}

static int
caps(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return result(-1, "/proc/self/status");
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Cap", 3) == 0 ||
		    strncmp(line, "NoNewPrivs", 10) == 0 ||
		    strncmp(line, "Uid", 3) == 0 ||
		    strncmp(line, "Seccomp:", 8) == 0)
			fputs(line, stdout);
	fclose(f);
	return 0;
}

static int
fds(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int self;

	if (d == NULL)
		return result(-1, "/proc/self/fd");
	self = dirfd(d);
	while ((de = readdir(d)) != NULL)
		if (atoi(de->d_name) > 2 && atoi(de->d_name) != self)
			printf("fd %s\n", de->d_name);
	closedir(d);
	printf("fds done\n");
	return 0;
}

static int
forks(int n)
{
	int i, ok = 0;
	pid_t pid;

	for (i = 0; i < n; i++) {
		if ((pid = fork()) == 0) {
			sleep(3);
			_exit(0);
		}
		if (pid == -1)
			break;
		ok++;
	}
	printf("forked %d of %d%s%s\n", ok, n, ok < n ? ": " : "",
	    ok < n ? strerror(errno) : "");
	fflush(stdout);
	while (wait(NULL) > 0)
		;
	return 0;
}

static int
alloc(long mb)
{
	long i;
	char *p;

	for (i = 0; i < mb; i++) {
		if ((p = malloc(1 << 20)) == NULL)
			return result(-1, "malloc");
		memset(p, 1, 1 << 20);
		if (i % 256 == 0) {
			printf("allocated %ld MiB\n", i);
			fflush(stdout);
		}
	}
	printf("allocated all %ld MiB\n", mb);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Listeners hang up at once: a write may find them gone. */
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(w, "ptrace") == 0)
		return result((int)ptrace(PTRACE_ATTACH, atoi(a), 0, 0),
		    "ptrace");
	if (strcmp(w, "tiocsti") == 0 && argc > 3) {
		const char *s = argv[3];
		int fd = strcmp(a, "tty") == 0 ? open("/dev/tty", O_RDWR) :
		    atoi(a);

		if (fd == -1)
			return result(-1, "/dev/tty");
		for (; *s; s++)
			if (ioctl(fd, TIOCSTI, s) == -1)
				return result(-1, "TIOCSTI");
		return result(0, "");
	}
	if (strcmp(w, "tcp") == 0)
		return inet(SOCK_STREAM, a);
	if (strcmp(w, "udp") == 0)
		return inet(SOCK_DGRAM, a);
	if (strcmp(w, "unix") == 0)
		return local(a, 0);
	if (strcmp(w, "abstract") == 0)
		return local(a, 1);
	if (strcmp(w, "keyring") == 0)
		return result((int)syscall(SYS_add_key, "user", "pi-escape",
		    "secret", 6, -3 /* KEY_SPEC_SESSION_KEYRING */), "add_key");
	if (strcmp(w, "unshare") == 0) {
		if (unshare(CLONE_NEWUSER) == -1 && unshare(CLONE_NEWNS) == -1)
			return result(-1, "unshare");
		return result(0, "");
	}
	if (strcmp(w, "mount") == 0)
		return result(mount("none", "/mnt", "tmpfs", 0, NULL), "mount");
	if (strcmp(w, "io_uring") == 0) {
		char params[120];

		memset(params, 0, sizeof(params));
		return result((int)syscall(SYS_io_uring_setup, 8, params),
		    "io_uring_setup");
	}
	if (strcmp(w, "bpf") == 0) {
		char attr[128];

		memset(attr, 0, sizeof(attr));
		return result((int)syscall(SYS_bpf, 5, attr, sizeof(attr)),
		    "bpf");
	}
	if (strcmp(w, "chroot") == 0) {
		if (chroot(a) == -1)
			return result(-1, "chroot");
		return result(access("/etc/hostname", F_OK), "after chroot");
	}
	if (strcmp(w, "sethostname") == 0)
		return result(sethostname(a, strlen(a)), "sethostname");
	if (strcmp(w, "caps") == 0)
		return caps();
	if (strcmp(w, "fds") == 0)
		return fds();
	if (strcmp(w, "forks") == 0)
		return forks(atoi(a));
	if (strcmp(w, "alloc") == 0)
		return alloc(atol(a));
	fprintf(stderr, "escape: unknown test '%s'\n", w);
	return 1;
}
