#include "CMosquitto.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Every libmosquitto function called, in the order they are loaded (a library that lacks several
// is said to lack the first), each as one of
// - FORWARDED(result, name, parameters, arguments): cmosquitto_<name>, declared in CMosquitto.h,
//   calls mosquitto_<name> with its parameters as they are;
// - FORWARDED_VOID(name, parameters, arguments): the same, for a function that returns nothing;
// - CALLED(result, name, parameters): called by this file only, with arguments of its own.
// Each is loaded into api.<name>. A forwarder whose parameters are not its prototype's in the
// header does not compile (conflicting types): the header stays the declaration Swift reads.
#define LIBMOSQUITTO(FORWARDED, FORWARDED_VOID, CALLED) \
  CALLED(int, lib_init, (void)) \
  CALLED(int, lib_version, (int *major, int *minor, int *revision)) \
  FORWARDED(struct mosquitto *, new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj)) \
  FORWARDED_VOID(destroy, (struct mosquitto *mosq), (mosq)) \
  FORWARDED(int, will_set, \
      (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, topic, payloadlen, payload, qos, retain)) \
  FORWARDED(int, reconnect_delay_set, \
      (struct mosquitto *mosq, unsigned int delay, unsigned int delay_max, bool exponential_backoff), \
      (mosq, delay, delay_max, exponential_backoff)) \
  FORWARDED(int, connect, (struct mosquitto *mosq, const char *host, int port, int keepalive), \
      (mosq, host, port, keepalive)) \
  FORWARDED(int, disconnect, (struct mosquitto *mosq), (mosq)) \
  FORWARDED(int, publish, \
      (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, \
          bool retain), \
      (mosq, mid, topic, payloadlen, payload, qos, retain)) \
  FORWARDED(int, subscribe, (struct mosquitto *mosq, int *mid, const char *sub, int qos), (mosq, mid, sub, qos)) \
  CALLED(int, subscribe_v5, \
      (struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, \
          const cmosquitto_property *properties)) \
  FORWARDED(int, loop_start, (struct mosquitto *mosq), (mosq)) \
  FORWARDED(int, loop_stop, (struct mosquitto *mosq, bool force), (mosq, force)) \
  FORWARDED_VOID(connect_callback_set, (struct mosquitto *mosq, cmosquitto_connect_callback callback), \
      (mosq, callback)) \
  FORWARDED_VOID(disconnect_callback_set, (struct mosquitto *mosq, cmosquitto_disconnect_callback callback), \
      (mosq, callback)) \
  FORWARDED_VOID(publish_callback_set, (struct mosquitto *mosq, cmosquitto_publish_callback callback), \
      (mosq, callback)) \
  FORWARDED_VOID(message_callback_set, (struct mosquitto *mosq, cmosquitto_message_callback callback), \
      (mosq, callback)) \
  FORWARDED(const char *, strerror, (int code), (code)) \
  FORWARDED(const char *, connack_string, (int code), (code)) \
  FORWARDED(int, int_option, (struct mosquitto *mosq, int option, int value), (mosq, option, value)) \
  FORWARDED(int, username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), \
      (mosq, username, password)) \
  CALLED(int, tls_set, \
      (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, \
          int (*pw_callback)(char *buf, int size, int rwflag, void *userdata))) \
  CALLED(int, connect_bind_v5, \
      (struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address, \
          const cmosquitto_property *properties)) \
  FORWARDED(int, property_add_int32, (cmosquitto_property **properties, int identifier, unsigned int value), \
      (properties, identifier, value)) \
  FORWARDED_VOID(property_free_all, (cmosquitto_property **properties), (properties)) \
  FORWARDED_VOID(publish_v5_callback_set, (struct mosquitto *mosq, cmosquitto_publish_v5_callback callback), \
      (mosq, callback)) \
  FORWARDED_VOID(subscribe_callback_set, (struct mosquitto *mosq, cmosquitto_subscribe_callback callback), \
      (mosq, callback)) \
  FORWARDED_VOID(log_callback_set, (struct mosquitto *mosq, cmosquitto_log_callback callback), (mosq, callback)) \
  FORWARDED(const char *, reason_string, (int code), (code)) \
  FORWARDED(int, loop_forever, (struct mosquitto *mosq, int timeout, int max_packets), (mosq, timeout, max_packets)) \
  FORWARDED(int, threaded_set, (struct mosquitto *mosq, bool threaded), (mosq, threaded)) \
  CALLED(bool, want_write, (struct mosquitto *mosq)) \
  CALLED(int, socket, (struct mosquitto *mosq)) \
  CALLED(int, loop_read, (struct mosquitto *mosq, int max_packets)) \
  CALLED(int, loop_write, (struct mosquitto *mosq, int max_packets)) \
  CALLED(int, loop_misc, (struct mosquitto *mosq)) \
  FORWARDED(int, reconnect, (struct mosquitto *mosq), (mosq))

// api.<name>: mosquitto_<name> once load() found it.
#define POINTER(result, name, parameters) result(*name) parameters;
#define FORWARDED_POINTER(result, name, parameters, arguments) POINTER(result, name, parameters)
#define FORWARDED_VOID_POINTER(name, parameters, arguments) POINTER(void, name, parameters)
static struct {
  LIBMOSQUITTO(FORWARDED_POINTER, FORWARDED_VOID_POINTER, POINTER)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int outcome = -1;
static char failure[512];

static void *symbol(void *library, const char *name) {
  void *found = dlsym(library, name);
  if (found == NULL && failure[0] == 0) {
    snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks %s", name);
  }
  return found;
}

// api.<name> = mosquitto_<name> of `library`, in load().
#define LOAD(result, name, parameters) api.name = (result(*) parameters)symbol(library, "mosquitto_" #name);
#define FORWARDED_LOAD(result, name, parameters, arguments) LOAD(result, name, parameters)
#define FORWARDED_VOID_LOAD(name, parameters, arguments) LOAD(void, name, parameters)

static void load(void) {
  // Tests name a library that is not there to see what a machine without libmosquitto1 does.
  const char *name = getenv("WORMHOLE_LIBMOSQUITTO");
  if (name == NULL || name[0] == 0) name = "libmosquitto.so.1";
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : "the library cannot be loaded");
    return;
  }
  LIBMOSQUITTO(FORWARDED_LOAD, FORWARDED_VOID_LOAD, LOAD)
  if (failure[0] != 0) return;
  int initialized = api.lib_init();
  if (initialized != CMOSQ_ERR_SUCCESS) {
    snprintf(failure, sizeof failure, "mosquitto_lib_init failed (%d)", initialized);
    return;
  }
  outcome = 0;
}

int cmosquitto_load(char *reason, size_t capacity) {
  pthread_once(&once, load);
  if (outcome != 0 && reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", failure);
  return outcome;
}

int cmosquitto_version(void) {
  int major = 0, minor = 0, revision = 0;
  api.lib_version(&major, &minor, &revision);
  return major * 1000000 + minor * 1000 + revision;
}

// The forwarders, each cmosquitto_<name>(parameters) calling api.<name>(arguments).
#define FORWARD(result, name, parameters, arguments) \
  result cmosquitto_##name parameters { return api.name arguments; }
#define FORWARD_VOID(name, parameters, arguments) \
  void cmosquitto_##name parameters { api.name arguments; }
#define NOT_FORWARDED(result, name, parameters)
LIBMOSQUITTO(FORWARD, FORWARD_VOID, NOT_FORWARDED)

int cmosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options) {
  return api.subscribe_v5(mosq, mid, sub, qos, options, NULL);
}
// A key that needs a passphrase fails to load instead of OpenSSL asking for one on the terminal.
static int no_passphrase(char *buffer, int size, int rwflag, void *userdata) {
  (void)buffer;
  (void)size;
  (void)rwflag;
  (void)userdata;
  return 0;
}
int cmosquitto_tls_set(
    struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile) {
  return api.tls_set(mosq, cafile, capath, certfile, keyfile, no_passphrase);
}
int cmosquitto_connect_bind_v5(
    struct mosquitto *mosq, const char *host, int port, int keepalive, const cmosquitto_property *properties) {
  return api.connect_bind_v5(mosq, host, port, keepalive, NULL, properties);
}

int cmosquitto_flush(struct mosquitto *mosq, int milliseconds) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  // No event says the queue is empty: look every 0.2 ms (a PUBACK leaves within one or two).
  while (api.socket(mosq) != -1 && api.want_write(mosq)) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (long)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed >= milliseconds) return 1;
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
  }
  return 0;
}

bool cmosquitto_has_connection(struct mosquitto *mosq) { return api.socket(mosq) != -1; }

static long milliseconds_since(const struct timespec *start);

int cmosquitto_hold_connection(struct mosquitto *mosq) {
  int socket = api.socket(mosq);
  if (socket == -1) return -1;
  int held = fcntl(socket, F_DUPFD_CLOEXEC, 0);
  if (held == -1) return -1;
  // The network thread may have lost the connection and reconnected meanwhile: only the
  // descriptor of the connection it has now is held (a stale number is another file's).
  int type = 0;
  socklen_t length = sizeof type;
  if (api.socket(mosq) != socket || getsockopt(held, SOL_SOCKET, SO_TYPE, &type, &length) != 0 ||
      type != SOCK_STREAM) {
    close(held);
    return -1;
  }
  return held;
}

int cmosquitto_await_close(int held, int milliseconds) {
  if (held < 0) return 0;
  // The FIN follows the DISCONNECT; the broker reads them in order.
  (void)shutdown(held, SHUT_WR);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int outcome = 1;
  char buffer[4096];
  for (;;) {
    long left = milliseconds - milliseconds_since(&start);
    if (left <= 0) break;
    struct pollfd readable = {held, POLLIN, 0};
    int ready = poll(&readable, 1, (int)left);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    // The descriptor is libmosquitto's, non-blocking.
    ssize_t count = read(held, buffer, sizeof buffer);
    if (count > 0) continue;  // what the broker sent after the DISCONNECT left: not handled
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    outcome = 0;  // closed (0), or reset (an error): the broker is done with the connection
    break;
  }
  close(held);
  return outcome;
}

struct cmosquitto_waker {
  int fd;
  atomic_bool stopping;
  atomic_bool accepted;
};

unsigned int cmosquitto_reconnect_delay(unsigned int failures, unsigned int limit) {
  // libmosquitto's linear backoff (mosquitto_reconnect_delay_set(1, limit, false)); at most an
  // hour, so that the pause in milliseconds fits an int.
  if (limit < 1) limit = 1;
  if (limit > 3600) limit = 3600;
  if (failures < 1) failures = 1;
  return failures < limit ? failures : limit;
}

struct cmosquitto_waker *cmosquitto_waker_new(void) {
  struct cmosquitto_waker *waker = calloc(1, sizeof *waker);
  if (waker == NULL) return NULL;
  waker->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (waker->fd < 0) {
    int error = errno;
    free(waker);
    errno = error;
    return NULL;
  }
  atomic_init(&waker->stopping, false);
  atomic_init(&waker->accepted, false);
  return waker;
}

void cmosquitto_waker_wake(struct cmosquitto_waker *waker) {
  uint64_t one = 1;
  // Only a counter at its maximum fails (EAGAIN): the loop is awake then anyway.
  if (write(waker->fd, &one, sizeof one) < 0) {
  }
}

void cmosquitto_waker_accepted(struct cmosquitto_waker *waker) { atomic_store(&waker->accepted, true); }

void cmosquitto_waker_stop(struct cmosquitto_waker *waker) {
  atomic_store(&waker->stopping, true);
  cmosquitto_waker_wake(waker);
}

void cmosquitto_waker_free(struct cmosquitto_waker *waker) {
  if (waker == NULL) return;
  close(waker->fd);
  free(waker);
}

static long milliseconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)(now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

// Sleeps `milliseconds`, taking the wakes meanwhile (a publication tried during an outage does
// not hasten the reconnection); false as soon as the loop is asked to stop.
static bool sleep_woken(struct cmosquitto_waker *waker, int milliseconds) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (atomic_load(&waker->stopping)) return false;
    long left = milliseconds - milliseconds_since(&start);
    if (left <= 0) return true;
    struct pollfd wake = {waker->fd, POLLIN, 0};
    if (poll(&wake, 1, (int)left) > 0) {
      uint64_t count;
      if (read(waker->fd, &count, sizeof count) < 0) {
      }
    }
  }
}

// The errors after which mosquitto_loop_forever returns instead of reconnecting.
static bool is_fatal(int code) {
  switch (code) {
  case 1: case 2: case 3: case 6: case 8: case 9: case 10: case 11: case 12: case 13: case 15: case 16:
    return true;
  default:
    return false;
  }
}

static void cork(int socket, int on) {
  // On a socket that is not TCP (a Unix socket, SOCKS) it fails and changes nothing.
  (void)setsockopt(socket, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

int cmosquitto_loop_woken(struct mosquitto *mosq, struct cmosquitto_waker *waker, unsigned int delay_limit) {
  unsigned int failures = 0;
  struct timespec stop_asked = {0, 0};
  for (;;) {
    // The broker accepted a connection since the last look: the next loss starts afresh.
    if (atomic_exchange(&waker->accepted, false)) failures = 0;
    int socket = api.socket(mosq);
    bool stopping = atomic_load(&waker->stopping);
    if (socket == -1) {
      if (stopping) return CMOSQ_ERR_SUCCESS;
      failures += failures < UINT_MAX;
      unsigned int delay = cmosquitto_reconnect_delay(failures, delay_limit);
      if (!sleep_woken(waker, (int)delay * 1000)) return CMOSQ_ERR_SUCCESS;
      int code = api.reconnect(mosq);
      if (code != CMOSQ_ERR_SUCCESS && is_fatal(code)) return code;
      continue;
    }
    if (stopping) {
      // The DISCONNECT leaves, then libmosquitto closes the socket; a broker that does not read
      // it holds the stop 2 s at most.
      if (stop_asked.tv_sec == 0 && stop_asked.tv_nsec == 0) clock_gettime(CLOCK_MONOTONIC, &stop_asked);
      else if (milliseconds_since(&stop_asked) > 2000) return CMOSQ_ERR_SUCCESS;
    }
    struct pollfd fds[2] = {
        {socket, (short)(POLLIN | (api.want_write(mosq) ? POLLOUT : 0)), 0},
        {waker->fd, POLLIN, 0},
    };
    // Wake at least once a second for the keep-alive (mosquitto_loop_misc).
    if (poll(fds, 2, stopping ? 100 : 1000) < 0 && errno != EINTR) return CMOSQ_ERR_ERRNO;
    if (fds[1].revents & POLLIN) {
      uint64_t count;
      if (read(waker->fd, &count, sizeof count) < 0) {
      }
    }
    int code = CMOSQ_ERR_SUCCESS;
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) code = api.loop_read(mosq, 1);
    // What the read queued (acknowledgements, publications the broker's answers let into the
    // in-flight window) and what was queued before the wake leave together.
    // Corked only when woken for a batch: a pass woken by the broker's answers alone writes
    // what they let into the in-flight window, one publication per acknowledgement in a
    // steady stream, for which the two setsockopt calls bought nothing (they were 1.75
    // syscalls per bridged change, `wormhole-bench broker`).
    bool batch = (fds[1].revents & POLLIN) != 0;
    if (code == CMOSQ_ERR_SUCCESS && api.socket(mosq) == socket && api.want_write(mosq)) {
      if (batch) cork(socket, 1);
      code = api.loop_write(mosq, 1);
      if (batch && api.socket(mosq) == socket) cork(socket, 0);
    }
    if (code == CMOSQ_ERR_SUCCESS && api.socket(mosq) != -1) code = api.loop_misc(mosq);
    if (code != CMOSQ_ERR_SUCCESS && is_fatal(code)) return code;
    // Any other failure closed the socket: the next pass reconnects.
  }
}
