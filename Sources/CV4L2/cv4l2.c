#include "cv4l2.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

// No EINTR loop here: -EINTR goes back to Swift, where BodySystem's
// valueOrNegativeErrno makes the call again (the body's one rule).
int cv4l2_xioctl(int fd, unsigned long request, void *arg) {
    int rc = ioctl(fd, request, arg);
    return rc < 0 ? -errno : 0;
}

int cv4l2_open(const char *path) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int cv4l2_querycap(int fd, int *capture, int *streaming, char *driver, size_t driverlen) {
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int rc = cv4l2_xioctl(fd, VIDIOC_QUERYCAP, &cap);
    if (rc < 0) return rc;
    uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    *capture = (caps & V4L2_CAP_VIDEO_CAPTURE) != 0;
    *streaming = (caps & V4L2_CAP_STREAMING) != 0;
    if (driverlen > 0) {
        size_t n = strnlen((const char *)cap.driver, sizeof cap.driver);
        if (n >= driverlen) n = driverlen - 1;
        memcpy(driver, cap.driver, n);
        driver[n] = 0;
    }
    return 0;
}

int cv4l2_enum_fmt(int fd, uint32_t index, uint32_t *pixelformat) {
    struct v4l2_fmtdesc desc;
    memset(&desc, 0, sizeof desc);
    desc.index = index;
    desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int rc = cv4l2_xioctl(fd, VIDIOC_ENUM_FMT, &desc);
    if (rc < 0) return rc;
    *pixelformat = desc.pixelformat;
    return 0;
}

/// VIDIOC_S_FMT for one side (capture or output), single-planar and progressive.
static int s_fmt(int fd, enum v4l2_buf_type type, uint32_t pixelformat, uint32_t width, uint32_t height,
                 uint32_t sizeimage, cv4l2_format *out) {
    struct v4l2_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.type = type;
    fmt.fmt.pix.width = width;
    fmt.fmt.pix.height = height;
    fmt.fmt.pix.pixelformat = pixelformat;
    fmt.fmt.pix.field = V4L2_FIELD_NONE;
    fmt.fmt.pix.sizeimage = sizeimage;
    int rc = cv4l2_xioctl(fd, VIDIOC_S_FMT, &fmt);
    if (rc < 0) return rc;
    out->width = fmt.fmt.pix.width;
    out->height = fmt.fmt.pix.height;
    out->pixelformat = fmt.fmt.pix.pixelformat;
    out->bytesperline = fmt.fmt.pix.bytesperline;
    out->sizeimage = fmt.fmt.pix.sizeimage;
    return 0;
}

int cv4l2_s_fmt(int fd, uint32_t pixelformat, uint32_t width, uint32_t height, cv4l2_format *out) {
    return s_fmt(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, pixelformat, width, height, 0, out);
}

int cv4l2_s_parm_fps(int fd, uint32_t fps, uint32_t *numerator, uint32_t *denominator) {
    struct v4l2_streamparm parm;
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    parm.parm.capture.timeperframe.numerator = 1;
    parm.parm.capture.timeperframe.denominator = fps;
    int rc = cv4l2_xioctl(fd, VIDIOC_S_PARM, &parm);
    if (rc < 0) return rc;
    *numerator = parm.parm.capture.timeperframe.numerator;
    *denominator = parm.parm.capture.timeperframe.denominator;
    return 0;
}

int cv4l2_reqbufs(int fd, uint32_t count, uint32_t *granted) {
    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = count;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    int rc = cv4l2_xioctl(fd, VIDIOC_REQBUFS, &req);
    if (rc < 0) return rc;
    *granted = req.count;
    return 0;
}

/* One capture mmap buffer's ioctl (QUERYBUF, QBUF, DQBUF) into `buf`. */
static int capture_buffer(int fd, unsigned long request, uint32_t index, struct v4l2_buffer *buf) {
    memset(buf, 0, sizeof *buf);
    buf->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf->memory = V4L2_MEMORY_MMAP;
    buf->index = index;
    return cv4l2_xioctl(fd, request, buf);
}

int cv4l2_querybuf(int fd, uint32_t index, uint32_t *offset, uint32_t *length) {
    struct v4l2_buffer buf;
    int rc = capture_buffer(fd, VIDIOC_QUERYBUF, index, &buf);
    if (rc < 0) return rc;
    *offset = buf.m.offset;
    *length = buf.length;
    return 0;
}

void *cv4l2_mmap(int fd, uint32_t offset, uint32_t length, int *err) {
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    if (p == MAP_FAILED) {
        *err = errno;
        return NULL;
    }
    *err = 0;
    return p;
}

int cv4l2_munmap(void *start, uint32_t length) {
    return munmap(start, length) < 0 ? -errno : 0;
}

int cv4l2_qbuf(int fd, uint32_t index) {
    struct v4l2_buffer buf;
    return capture_buffer(fd, VIDIOC_QBUF, index, &buf);
}

int cv4l2_dqbuf(int fd, cv4l2_frame *frame) {
    struct v4l2_buffer buf;
    int rc = capture_buffer(fd, VIDIOC_DQBUF, 0, &buf);
    if (rc < 0) return rc;
    frame->index = buf.index;
    frame->bytesused = buf.bytesused;
    frame->flags = buf.flags;
    frame->sequence = buf.sequence;
    return 0;
}

int cv4l2_buffer_sequence(int fd, uint32_t index, uint32_t *sequence) {
    struct v4l2_buffer buf;
    int rc = capture_buffer(fd, VIDIOC_QUERYBUF, index, &buf);
    if (rc < 0) return rc;
    *sequence = buf.sequence;
    return 0;
}

int cv4l2_streamon(int fd) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return cv4l2_xioctl(fd, VIDIOC_STREAMON, &type);
}

int cv4l2_streamoff(int fd) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return cv4l2_xioctl(fd, VIDIOC_STREAMOFF, &type);
}

int cv4l2_open_output(const char *path) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int cv4l2_s_fmt_output(int fd, uint32_t pixelformat, uint32_t width, uint32_t height, uint32_t sizeimage,
                       cv4l2_format *out) {
    return s_fmt(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, pixelformat, width, height, sizeimage, out);
}
