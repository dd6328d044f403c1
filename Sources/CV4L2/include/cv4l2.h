// The V4L2 capture ioctls the camera adapter needs, as plain functions.
// Every function returns 0 or a negative errno, -EINTR included: the retry
// is decided once, in Swift (BodySystem's valueOrNegativeErrno, used by CameraCalls.live).
// Descriptors are closed by BodySystem's FileDescriptor.close.
#ifndef CV4L2_H
#define CV4L2_H

#include <stddef.h>
#include <stdint.h>
#include <linux/videodev2.h>

/// Pixel formats the adapter knows, as fourcc codes (Swift cannot call v4l2_fourcc).
static const uint32_t CV4L2_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const uint32_t CV4L2_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const uint32_t CV4L2_FMT_YUYV = V4L2_PIX_FMT_YUYV;

/// What VIDIOC_S_FMT settled on.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint32_t pixelformat;
    uint32_t bytesperline;
    uint32_t sizeimage;
} cv4l2_format;

/// One dequeued buffer.
typedef struct {
    uint32_t index;
    uint32_t bytesused;
    uint32_t flags;
    uint32_t sequence;
} cv4l2_frame;

/// ioctl; 0 or -errno (-EINTR too: the caller retries).
int cv4l2_xioctl(int fd, unsigned long request, void *arg);

/// Opens the device read-write, non-blocking, close-on-exec; the fd or -errno.
int cv4l2_open(const char *path);
/// VIDIOC_QUERYCAP: whether it captures video and can stream (1/0 each); the driver's name
/// ("uvcvideo", "v4l2 loopback"), cut to `driverlen` with its NUL.
int cv4l2_querycap(int fd, int *capture, int *streaming, char *driver, size_t driverlen);
/// VIDIOC_ENUM_FMT for single-planar capture; -EINVAL past the last index.
int cv4l2_enum_fmt(int fd, uint32_t index, uint32_t *pixelformat);
/// VIDIOC_S_FMT (progressive); `out` says what the driver chose.
int cv4l2_s_fmt(int fd, uint32_t pixelformat, uint32_t width, uint32_t height, cv4l2_format *out);
/// VIDIOC_S_PARM with a frame interval of 1/fps; the driver's interval comes back.
int cv4l2_s_parm_fps(int fd, uint32_t fps, uint32_t *numerator, uint32_t *denominator);
/// VIDIOC_REQBUFS for mmap buffers; `granted` is how many the driver gave. count 0 frees them.
int cv4l2_reqbufs(int fd, uint32_t count, uint32_t *granted);
/// VIDIOC_QUERYBUF: where buffer `index` lives for mmap.
int cv4l2_querybuf(int fd, uint32_t index, uint32_t *offset, uint32_t *length);
/// mmap of one buffer; NULL and *err = errno on failure.
void *cv4l2_mmap(int fd, uint32_t offset, uint32_t length, int *err);
int cv4l2_munmap(void *start, uint32_t length);
/// VIDIOC_QBUF of an mmap buffer.
int cv4l2_qbuf(int fd, uint32_t index);
/// VIDIOC_DQBUF; -EAGAIN when no buffer is ready.
int cv4l2_dqbuf(int fd, cv4l2_frame *frame);
/// VIDIOC_QUERYBUF: the sequence number of the frame buffer `index` holds now
/// (a v4l2loopback writer may refill a buffer a reader has dequeued).
int cv4l2_buffer_sequence(int fd, uint32_t index, uint32_t *sequence);
int cv4l2_streamon(int fd);
int cv4l2_streamoff(int fd);

/// Opens an output node (a v4l2loopback writer) write-only, blocking, close-on-exec; the fd or -errno.
int cv4l2_open_output(const char *path);
/// VIDIOC_S_FMT on the output side: the frames written after it are `pixelformat` at this size,
/// each at most `sizeimage` bytes; `out` says what the driver chose.
int cv4l2_s_fmt_output(int fd, uint32_t pixelformat, uint32_t width, uint32_t height, uint32_t sizeimage,
                       cv4l2_format *out);

#endif
