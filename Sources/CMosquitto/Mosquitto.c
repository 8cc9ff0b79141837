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

static struct {
  int (*lib_init)(void);
  int (*lib_version)(int *, int *, int *);
  struct mosquitto *(*new_)(const char *, bool, void *);
  void (*destroy)(struct mosquitto *);
  int (*will_set)(struct mosquitto *, const char *, int, const void *, int, bool);
  int (*reconnect_delay_set)(struct mosquitto *, unsigned int, unsigned int, bool);
  int (*connect)(struct mosquitto *, const char *, int, int);
  int (*disconnect)(struct mosquitto *);
  int (*publish)(struct mosquitto *, int *, const char *, int, const void *, int, bool);
  int (*subscribe)(struct mosquitto *, int *, const char *, int);
  int (*subscribe_v5)(struct mosquitto *, int *, const char *, int, int, const cmosquitto_property *);
  int (*loop_start)(struct mosquitto *);
  int (*loop_stop)(struct mosquitto *, bool);
  void (*connect_callback_set)(struct mosquitto *, cmosquitto_connect_callback);
  void (*disconnect_callback_set)(struct mosquitto *, cmosquitto_disconnect_callback);
  void (*publish_callback_set)(struct mosquitto *, cmosquitto_publish_callback);
  void (*message_callback_set)(struct mosquitto *, cmosquitto_message_callback);
  const char *(*strerror)(int);
  const char *(*connack_string)(int);
  int (*int_option)(struct mosquitto *, int, int);
  int (*username_pw_set)(struct mosquitto *, const char *, const char *);
  int (*tls_set)(
      struct mosquitto *, const char *, const char *, const char *, const char *,
      int (*)(char *, int, int, void *));
  int (*connect_bind_v5)(struct mosquitto *, const char *, int, int, const char *, const cmosquitto_property *);
  int (*property_add_int32)(cmosquitto_property **, int, unsigned int);
  void (*property_free_all)(cmosquitto_property **);
  void (*publish_v5_callback_set)(struct mosquitto *, cmosquitto_publish_v5_callback);
  void (*subscribe_callback_set)(struct mosquitto *, cmosquitto_subscribe_callback);
  void (*log_callback_set)(struct mosquitto *, cmosquitto_log_callback);
  const char *(*reason_string)(int);
  int (*loop_forever)(struct mosquitto *, int, int);
  int (*threaded_set)(struct mosquitto *, bool);
  bool (*want_write)(struct mosquitto *);
  int (*socket)(struct mosquitto *);
  int (*loop_read)(struct mosquitto *, int);
  int (*loop_write)(struct mosquitto *, int);
  int (*loop_misc)(struct mosquitto *);
  int (*reconnect)(struct mosquitto *);
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
  api.lib_init = (int (*)(void))symbol(library, "mosquitto_lib_init");
  api.lib_version = (int (*)(int *, int *, int *))symbol(library, "mosquitto_lib_version");
  api.new_ = (struct mosquitto * (*)(const char *, bool, void *)) symbol(library, "mosquitto_new");
  api.destroy = (void (*)(struct mosquitto *))symbol(library, "mosquitto_destroy");
  api.will_set = (int (*)(struct mosquitto *, const char *, int, const void *, int, bool))symbol(
      library, "mosquitto_will_set");
  api.reconnect_delay_set = (int (*)(struct mosquitto *, unsigned int, unsigned int, bool))symbol(
      library, "mosquitto_reconnect_delay_set");
  api.connect = (int (*)(struct mosquitto *, const char *, int, int))symbol(library, "mosquitto_connect");
  api.disconnect = (int (*)(struct mosquitto *))symbol(library, "mosquitto_disconnect");
  api.publish = (int (*)(struct mosquitto *, int *, const char *, int, const void *, int, bool))symbol(
      library, "mosquitto_publish");
  api.subscribe = (int (*)(struct mosquitto *, int *, const char *, int))symbol(library, "mosquitto_subscribe");
  api.subscribe_v5 = (int (*)(struct mosquitto *, int *, const char *, int, int, const cmosquitto_property *))symbol(
      library, "mosquitto_subscribe_v5");
  api.loop_start = (int (*)(struct mosquitto *))symbol(library, "mosquitto_loop_start");
  api.loop_stop = (int (*)(struct mosquitto *, bool))symbol(library, "mosquitto_loop_stop");
  api.connect_callback_set = (void (*)(struct mosquitto *, cmosquitto_connect_callback))symbol(
      library, "mosquitto_connect_callback_set");
  api.disconnect_callback_set = (void (*)(struct mosquitto *, cmosquitto_disconnect_callback))symbol(
      library, "mosquitto_disconnect_callback_set");
  api.publish_callback_set = (void (*)(struct mosquitto *, cmosquitto_publish_callback))symbol(
      library, "mosquitto_publish_callback_set");
  api.message_callback_set = (void (*)(struct mosquitto *, cmosquitto_message_callback))symbol(
      library, "mosquitto_message_callback_set");
  api.strerror = (const char *(*)(int))symbol(library, "mosquitto_strerror");
  api.connack_string = (const char *(*)(int))symbol(library, "mosquitto_connack_string");
  api.int_option = (int (*)(struct mosquitto *, int, int))symbol(library, "mosquitto_int_option");
  api.username_pw_set =
      (int (*)(struct mosquitto *, const char *, const char *))symbol(library, "mosquitto_username_pw_set");
  api.tls_set = (int (*)(
      struct mosquitto *, const char *, const char *, const char *, const char *,
      int (*)(char *, int, int, void *)))symbol(library, "mosquitto_tls_set");
  api.connect_bind_v5 = (int (*)(struct mosquitto *, const char *, int, int, const char *,
      const cmosquitto_property *))symbol(library, "mosquitto_connect_bind_v5");
  api.property_add_int32 =
      (int (*)(cmosquitto_property **, int, unsigned int))symbol(library, "mosquitto_property_add_int32");
  api.property_free_all = (void (*)(cmosquitto_property **))symbol(library, "mosquitto_property_free_all");
  api.publish_v5_callback_set = (void (*)(struct mosquitto *, cmosquitto_publish_v5_callback))symbol(
      library, "mosquitto_publish_v5_callback_set");
  api.subscribe_callback_set = (void (*)(struct mosquitto *, cmosquitto_subscribe_callback))symbol(
      library, "mosquitto_subscribe_callback_set");
  api.log_callback_set =
      (void (*)(struct mosquitto *, cmosquitto_log_callback))symbol(library, "mosquitto_log_callback_set");
  api.reason_string = (const char *(*)(int))symbol(library, "mosquitto_reason_string");
  api.loop_forever = (int (*)(struct mosquitto *, int, int))symbol(library, "mosquitto_loop_forever");
  api.threaded_set = (int (*)(struct mosquitto *, bool))symbol(library, "mosquitto_threaded_set");
  api.want_write = (bool (*)(struct mosquitto *))symbol(library, "mosquitto_want_write");
  api.socket = (int (*)(struct mosquitto *))symbol(library, "mosquitto_socket");
  api.loop_read = (int (*)(struct mosquitto *, int))symbol(library, "mosquitto_loop_read");
  api.loop_write = (int (*)(struct mosquitto *, int))symbol(library, "mosquitto_loop_write");
  api.loop_misc = (int (*)(struct mosquitto *))symbol(library, "mosquitto_loop_misc");
  api.reconnect = (int (*)(struct mosquitto *))symbol(library, "mosquitto_reconnect");
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

struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *obj) {
  return api.new_(id, clean_session, obj);
}
void cmosquitto_destroy(struct mosquitto *mosq) { api.destroy(mosq); }
int cmosquitto_will_set(
    struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain) {
  return api.will_set(mosq, topic, payloadlen, payload, qos, retain);
}
int cmosquitto_reconnect_delay_set(
    struct mosquitto *mosq, unsigned int delay, unsigned int delay_max, bool exponential_backoff) {
  return api.reconnect_delay_set(mosq, delay, delay_max, exponential_backoff);
}
int cmosquitto_connect(struct mosquitto *mosq, const char *host, int port, int keepalive) {
  return api.connect(mosq, host, port, keepalive);
}
int cmosquitto_disconnect(struct mosquitto *mosq) { return api.disconnect(mosq); }
int cmosquitto_publish(
    struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos,
    bool retain) {
  return api.publish(mosq, mid, topic, payloadlen, payload, qos, retain);
}
int cmosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) {
  return api.subscribe(mosq, mid, sub, qos);
}
int cmosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options) {
  return api.subscribe_v5(mosq, mid, sub, qos, options, NULL);
}
int cmosquitto_loop_start(struct mosquitto *mosq) { return api.loop_start(mosq); }
int cmosquitto_loop_stop(struct mosquitto *mosq, bool force) { return api.loop_stop(mosq, force); }
void cmosquitto_connect_callback_set(struct mosquitto *mosq, cmosquitto_connect_callback callback) {
  api.connect_callback_set(mosq, callback);
}
void cmosquitto_disconnect_callback_set(struct mosquitto *mosq, cmosquitto_disconnect_callback callback) {
  api.disconnect_callback_set(mosq, callback);
}
void cmosquitto_publish_callback_set(struct mosquitto *mosq, cmosquitto_publish_callback callback) {
  api.publish_callback_set(mosq, callback);
}
void cmosquitto_message_callback_set(struct mosquitto *mosq, cmosquitto_message_callback callback) {
  api.message_callback_set(mosq, callback);
}
const char *cmosquitto_strerror(int code) { return api.strerror(code); }
const char *cmosquitto_connack_string(int code) { return api.connack_string(code); }
int cmosquitto_int_option(struct mosquitto *mosq, int option, int value) {
  return api.int_option(mosq, option, value);
}
int cmosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
  return api.username_pw_set(mosq, username, password);
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
int cmosquitto_property_add_int32(cmosquitto_property **properties, int identifier, unsigned int value) {
  return api.property_add_int32(properties, identifier, value);
}
void cmosquitto_property_free_all(cmosquitto_property **properties) { api.property_free_all(properties); }
void cmosquitto_publish_v5_callback_set(struct mosquitto *mosq, cmosquitto_publish_v5_callback callback) {
  api.publish_v5_callback_set(mosq, callback);
}
void cmosquitto_subscribe_callback_set(struct mosquitto *mosq, cmosquitto_subscribe_callback callback) {
  api.subscribe_callback_set(mosq, callback);
}
void cmosquitto_log_callback_set(struct mosquitto *mosq, cmosquitto_log_callback callback) {
  api.log_callback_set(mosq, callback);
}
const char *cmosquitto_reason_string(int code) { return api.reason_string(code); }
int cmosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets) {
  return api.loop_forever(mosq, timeout, max_packets);
}
int cmosquitto_threaded_set(struct mosquitto *mosq, bool threaded) { return api.threaded_set(mosq, threaded); }

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

int cmosquitto_reconnect(struct mosquitto *mosq) { return api.reconnect(mosq); }

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
