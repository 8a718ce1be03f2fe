/* link_pipe.c: what carries the board link's bytes.
 *
 * For: three byte pipes behind one small interface (link.h): a serial
 * device through the kernel's driver ("tty:DEV": raw 8N1, no flow control,
 * any rate through termios2's BOTHER), an FTDI USB bridge through libftdi1
 * ("usb", "usb:VID:PID[:SERIAL]"), and a file descriptor the tests hold the
 * other end of (a socket, a pseudo-terminal). Each says on stderr, in one
 * line naming the device, why it could not open.
 * Not for: frames or what they mean (link_frame.c, link.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <asm/ioctls.h>   /* TCGETS2, TCSETS2, TCFLSH */
#include <asm/termbits.h> /* termios2, BOTHER: not with <termios.h> */
#include <ftdi.h>

#include "link.h"

/* <sys/ioctl.h> clashes with <asm/termbits.h>; its one call suffices. */
extern int ioctl(int fd, unsigned long request, ...);

#define BAUD_DEFAULT 3000000u
#define FTDI_VID_DEFAULT 0x0403   /* FTDI */
#define FTDI_PID_DEFAULT 0x6015   /* FT231X (the ULX3S) */
#define FTDI_LATENCY_MS 1

static unsigned baud_rate(void)
{
    const char *env = getenv("QPNIC_LINK_BAUD");
    char *end = NULL;
    unsigned long b = env ? strtoul(env, &end, 10) : 0;
    if (!env || end == env || *end != '\0' || b == 0 || b > 0xFFFFFFFFul)
        return BAUD_DEFAULT;
    return (unsigned)b;
}

static ndk_status open_failed(const char *dev, const char *why)
{
    fprintf(stderr, "qpnic: cannot open %s: %s\n", dev, why);
    return NDK_STATUS_IO_ERROR;
}

/* ---- a file descriptor: sockets, terminals ---- */

typedef struct {
    qpnic_pipe base;
    int fd;
} fd_pipe;

static int fd_read(qpnic_pipe *p, uint8_t *buf, size_t max, int timeout_ms)
{
    fd_pipe *f = (fd_pipe *)p;
    struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    if (r == 0)
        return 0;
    ssize_t n = read(f->fd, buf, max);
    if (n > 0)
        return (int)n;
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    return -1; /* the other end closed, or the device went away */
}

static int fd_write(qpnic_pipe *p, const uint8_t *buf, size_t len)
{
    fd_pipe *f = (fd_pipe *)p;
    while (len > 0) {
        /* MSG_NOSIGNAL: a closed peer is an error here, not a SIGPIPE */
        ssize_t n = send(f->fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(f->fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                return -1;
            struct pollfd pfd = { .fd = f->fd, .events = POLLOUT };
            poll(&pfd, 1, 100);
            continue;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void fd_close(qpnic_pipe *p)
{
    close(((fd_pipe *)p)->fd);
    free(p);
}

ndk_status qpnic_pipe_fd_open(int fd, const char *name, qpnic_pipe **out)
{
    fd_pipe *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    f->fd = fd;
    f->base.read = fd_read;
    f->base.write = fd_write;
    f->base.close = fd_close;
    snprintf(f->base.name, sizeof f->base.name, "%s", name);
    *out = &f->base;
    return NDK_STATUS_SUCCESS;
}

/* ---- a serial device ---- */

/* Raw 8N1, no flow control, at `baud` exactly; 0, or -1 with *why set. */
static int tty_setup(int fd, unsigned baud, char *why, size_t why_len)
{
    struct termios2 tio;
    if (ioctl(fd, TCGETS2, &tio) != 0) {
        snprintf(why, why_len, "not a serial device (%s)", strerror(errno));
        return -1;
    }
    tio.c_iflag = 0;
    tio.c_oflag = 0;
    tio.c_lflag = 0;
    tio.c_cflag &= ~(tcflag_t)(CBAUD | CSIZE | PARENB | CSTOPB | CRTSCTS | (CBAUD << IBSHIFT));
    tio.c_cflag |= CS8 | CREAD | CLOCAL | BOTHER | (BOTHER << IBSHIFT);
    tio.c_ispeed = baud;
    tio.c_ospeed = baud;
    tio.c_cc[VMIN] = 0;
    tio.c_cc[VTIME] = 0;
    if (ioctl(fd, TCSETS2, &tio) != 0) {
        snprintf(why, why_len, "setting %u baud 8N1: %s", baud, strerror(errno));
        return -1;
    }
    struct termios2 got;
    if (ioctl(fd, TCGETS2, &got) != 0 || got.c_ospeed != baud || got.c_ispeed != baud) {
        snprintf(why, why_len, "the device took %u baud, not the %u asked for", (unsigned)got.c_ospeed, baud);
        return -1;
    }
    ioctl(fd, TCFLSH, TCIOFLUSH);
    return 0;
}

ndk_status qpnic_pipe_tty_open(const char *dev, qpnic_pipe **out)
{
    char name[sizeof ((qpnic_pipe *)0)->name];
    snprintf(name, sizeof name, "tty:%s", dev);
    int fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return open_failed(name, strerror(errno));
    char why[128];
    if (tty_setup(fd, baud_rate(), why, sizeof why) != 0) {
        close(fd);
        return open_failed(name, why);
    }
    return qpnic_pipe_fd_open(fd, name, out);
}

/* ---- an FTDI bridge through libftdi1 ---- */

typedef struct {
    qpnic_pipe base;
    struct ftdi_context *ftdi;
} usb_pipe;

static int usb_read(qpnic_pipe *p, uint8_t *buf, size_t max, int timeout_ms)
{
    usb_pipe *u = (usb_pipe *)p;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int chunk = max > 65536 ? 65536 : (int)max;
    for (;;) {
        /* The chip answers each bulk read within its latency timer, empty
         * or not, so this returns at once or within a millisecond. */
        int n = ftdi_read_data(u->ftdi, buf, chunk);
        if (n != 0)
            return n > 0 ? n : -1;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = (t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L;
        if (ms >= timeout_ms)
            return 0;
        struct timespec nap = { 0, 200000L };
        nanosleep(&nap, NULL);
    }
}

static int usb_write(qpnic_pipe *p, const uint8_t *buf, size_t len)
{
    usb_pipe *u = (usb_pipe *)p;
    while (len > 0) {
        int n = ftdi_write_data(u->ftdi, buf, len > 4096 ? 4096 : (int)len);
        if (n < 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void usb_close(qpnic_pipe *p)
{
    usb_pipe *u = (usb_pipe *)p;
    ftdi_usb_close(u->ftdi);
    ftdi_free(u->ftdi);
    free(u);
}

/* "" or "VID:PID[:SERIAL]" (hex ids); 0, or -1 when malformed. */
static int parse_usb_spec(const char *spec, int *vid, int *pid, char *serial, size_t serial_len)
{
    *vid = FTDI_VID_DEFAULT;
    *pid = FTDI_PID_DEFAULT;
    serial[0] = '\0';
    if (*spec == '\0')
        return 0;
    char *end = NULL;
    unsigned long v = strtoul(spec, &end, 16);
    if (end == spec || *end != ':' || v > 0xFFFF)
        return -1;
    const char *ps = end + 1;
    unsigned long d = strtoul(ps, &end, 16);
    if (end == ps || (*end != '\0' && *end != ':') || d > 0xFFFF)
        return -1;
    if (*end == ':') {
        if (end[1] == '\0' || strlen(end + 1) >= serial_len)
            return -1;
        strcpy(serial, end + 1);
    }
    *vid = (int)v;
    *pid = (int)d;
    return 0;
}

/* Rate, 8N1, no flow control, 1 ms latency, empty buffers; NULL or the
 * libftdi error. */
static const char *usb_setup(struct ftdi_context *f, unsigned baud)
{
    if (ftdi_set_baudrate(f, (int)baud) < 0 ||
        ftdi_set_line_property(f, BITS_8, STOP_BIT_1, NONE) < 0 ||
        ftdi_setflowctrl(f, SIO_DISABLE_FLOW_CTRL) < 0 ||
        ftdi_set_latency_timer(f, FTDI_LATENCY_MS) < 0 ||
        ftdi_tcioflush(f) < 0)
        return ftdi_get_error_string(f);
    return NULL;
}

ndk_status qpnic_pipe_usb_open(const char *spec, qpnic_pipe **out)
{
    int vid, pid;
    char serial[64];
    char name[sizeof ((qpnic_pipe *)0)->name];
    if (parse_usb_spec(spec, &vid, &pid, serial, sizeof serial) != 0) {
        fprintf(stderr, "qpnic: usb:%s: not usb:VID:PID[:SERIAL] (hex ids)\n", spec);
        return NDK_STATUS_INVALID_PARAMETER;
    }
    snprintf(name, sizeof name, "usb:%04x:%04x%s%s", vid, pid, serial[0] ? ":" : "", serial);
    usb_pipe *u = calloc(1, sizeof *u);
    if (!u)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    u->ftdi = ftdi_new();
    if (!u->ftdi) {
        free(u);
        return open_failed(name, "libftdi could not start (ftdi_new failed)");
    }
    const char *why = NULL;
    if (ftdi_usb_open_desc(u->ftdi, vid, pid, NULL, serial[0] ? serial : NULL) < 0) {
        why = ftdi_get_error_string(u->ftdi);
    } else if ((why = usb_setup(u->ftdi, baud_rate())) != NULL) {
        ftdi_usb_close(u->ftdi);
    }
    if (why) {
        ndk_status st = open_failed(name, why); /* prints before the context goes */
        ftdi_free(u->ftdi);
        free(u);
        return st;
    }
    u->base.read = usb_read;
    u->base.write = usb_write;
    u->base.close = usb_close;
    snprintf(u->base.name, sizeof u->base.name, "%s", name);
    *out = &u->base;
    return NDK_STATUS_SUCCESS;
}
