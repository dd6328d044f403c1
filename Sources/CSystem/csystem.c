#include "csystem.h"
