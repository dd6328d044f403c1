#include "cgpiod.h"
