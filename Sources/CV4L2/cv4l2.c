#include "cv4l2.h"
