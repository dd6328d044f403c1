// Which libgpiod API the gpiod.h on the include path declares. Only v1
// defines GPIOD_LINE_BULK_MAX_LINES (v2 dropped line bulks).
#ifndef STUDIO_BODY_CGPIOD_SELECT_H
#define STUDIO_BODY_CGPIOD_SELECT_H
#include <gpiod.h>
#ifdef GPIOD_LINE_BULK_MAX_LINES
#define SB_GPIOD_API 1
#else
#define SB_GPIOD_API 2
#endif
#endif
