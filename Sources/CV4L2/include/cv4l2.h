#include <linux/videodev2.h>
