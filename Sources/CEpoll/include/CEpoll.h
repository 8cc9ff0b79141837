// Linux epoll (<sys/epoll.h>), which Swift's Glibc module does not include.
#ifndef C_EPOLL_H
#define C_EPOLL_H
#include <sys/epoll.h>
#endif
