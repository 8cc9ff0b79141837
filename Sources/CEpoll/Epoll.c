// The header is the whole module: SwiftPM needs one source file in a C target.
#include "CEpoll.h"
