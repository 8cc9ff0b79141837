// Linux extended attributes (<sys/xattr.h>), which Swift's Glibc module does not include.
#ifndef C_EXTENDED_ATTRIBUTES_H
#define C_EXTENDED_ATTRIBUTES_H
#include <sys/types.h>
#include <sys/xattr.h>
#endif
