// The part of libmosquitto's client API (mosquitto.h, 2.0) that MQTTClient calls, declared here
// after the library's documented interface, and reached through dlopen("libmosquitto.so.1") on
// first use: building needs neither the development package (libmosquitto-dev) nor the runtime
// library (libmosquitto1), and every feature but the broker runs without them.
//
// Each cmosquitto_* function calls the symbol of the same name without the prefix; none may be
// called before cmosquitto_load() returned 0. Those that only pass their parameters on are
// defined from one table in Mosquitto.c (LIBMOSQUITTO): a function added here is added there. The struct layout and constants are libmosquitto's
// ABI, stable across its 1.6 and 2.x releases (soname libmosquitto.so.1; MQTT 5 since 1.6).
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <stdbool.h>
#include <stddef.h>

struct mosquitto;
/// An MQTT 5 property list (opaque; built with cmosquitto_property_add_int32).
struct mqtt5__property;
typedef struct mqtt5__property cmosquitto_property;

/// A message as libmosquitto hands it to the message callback (valid only during the call).
struct mosquitto_message {
  int mid;
  char *topic;
  void *payload;
  int payloadlen;
  int qos;
  bool retain;
};

// Error codes (enum mosq_err_t).
#define CMOSQ_ERR_SUCCESS 0
#define CMOSQ_ERR_NOMEM 1
#define CMOSQ_ERR_PROTOCOL 2
#define CMOSQ_ERR_INVAL 3
#define CMOSQ_ERR_NO_CONN 4
#define CMOSQ_ERR_CONN_LOST 7
#define CMOSQ_ERR_PAYLOAD_SIZE 9
#define CMOSQ_ERR_TLS 8
#define CMOSQ_ERR_ERRNO 14

// Options (enum mosq_opt_t) and their values.
#define CMOSQ_OPT_PROTOCOL_VERSION 1
#define CMOSQ_OPT_TLS_USE_OS_CERTS 13
#define CMQTT_PROTOCOL_V311 4
#define CMQTT_PROTOCOL_V5 5

// MQTT 5 property identifiers.
#define CMQTT_PROP_SESSION_EXPIRY_INTERVAL 17

// Log levels (MOSQ_LOG_*).
#define CMOSQ_LOG_ERR 0x08

typedef void (*cmosquitto_connect_callback)(struct mosquitto *, void *, int);
typedef void (*cmosquitto_disconnect_callback)(struct mosquitto *, void *, int);
typedef void (*cmosquitto_publish_callback)(struct mosquitto *, void *, int);
typedef void (*cmosquitto_message_callback)(struct mosquitto *, void *, const struct mosquitto_message *);
typedef void (*cmosquitto_publish_v5_callback)(
    struct mosquitto *, void *, int mid, int reason_code, const cmosquitto_property *);
typedef void (*cmosquitto_subscribe_callback)(struct mosquitto *, void *, int mid, int count, const int *granted);
typedef void (*cmosquitto_log_callback)(struct mosquitto *, void *, int level, const char *text);

/// Loads libmosquitto.so.1 ($WORMHOLE_LIBMOSQUITTO instead when set, for tests) and its symbols
/// once (later calls return the first outcome) and calls mosquitto_lib_init.
/// 0 on success; otherwise -1 with the reason (dlerror's) in `reason`.
int cmosquitto_load(char *reason, size_t capacity);

/// The loaded library's version (major * 1000000 + minor * 1000 + revision).
int cmosquitto_version(void);

struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *obj);
void cmosquitto_destroy(struct mosquitto *mosq);
int cmosquitto_will_set(
    struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
int cmosquitto_reconnect_delay_set(
    struct mosquitto *mosq, unsigned int delay, unsigned int delay_max, bool exponential_backoff);
int cmosquitto_connect(struct mosquitto *mosq, const char *host, int port, int keepalive);
int cmosquitto_disconnect(struct mosquitto *mosq);
int cmosquitto_publish(
    struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos,
    bool retain);
int cmosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
/// mosquitto_subscribe_v5 without properties: `options` OR'd MQTT 5 subscription options.
int cmosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options);
/// MQTT 5's "no local" subscription option: the broker sends the client none of its own publications.
#define CMQTT_SUB_OPT_NO_LOCAL 0x04
int cmosquitto_loop_start(struct mosquitto *mosq);
int cmosquitto_loop_stop(struct mosquitto *mosq, bool force);
void cmosquitto_connect_callback_set(struct mosquitto *mosq, cmosquitto_connect_callback callback);
void cmosquitto_disconnect_callback_set(struct mosquitto *mosq, cmosquitto_disconnect_callback callback);
void cmosquitto_publish_callback_set(struct mosquitto *mosq, cmosquitto_publish_callback callback);
void cmosquitto_message_callback_set(struct mosquitto *mosq, cmosquitto_message_callback callback);
const char *cmosquitto_strerror(int code);
const char *cmosquitto_connack_string(int code);

// Since libmosquitto 1.6 (MQTT 5), and 2.0 for CMOSQ_OPT_TLS_USE_OS_CERTS.
int cmosquitto_int_option(struct mosquitto *mosq, int option, int value);
int cmosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
/// TLS with the CA certificates in `cafile` (PEM) or the directory `capath` (one may be NULL);
/// the server's certificate and host name are verified. `certfile` and `keyfile` (both or
/// neither, PEM) are this client's certificate and key, for a broker that requires one; a key
/// that needs a passphrase is not loaded (no terminal prompt).
int cmosquitto_tls_set(
    struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile);
int cmosquitto_connect_bind_v5(
    struct mosquitto *mosq, const char *host, int port, int keepalive, const cmosquitto_property *properties);
int cmosquitto_property_add_int32(cmosquitto_property **properties, int identifier, unsigned int value);
void cmosquitto_property_free_all(cmosquitto_property **properties);
void cmosquitto_publish_v5_callback_set(struct mosquitto *mosq, cmosquitto_publish_v5_callback callback);
void cmosquitto_subscribe_callback_set(struct mosquitto *mosq, cmosquitto_subscribe_callback callback);
void cmosquitto_log_callback_set(struct mosquitto *mosq, cmosquitto_log_callback callback);
const char *cmosquitto_reason_string(int code);
int cmosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets);
int cmosquitto_threaded_set(struct mosquitto *mosq, bool threaded);

/// Waits until libmosquitto's network thread has written every packet it queued (acknowledgements
/// of messages received included: mosquitto_want_write is false), the connection is gone
/// (mosquitto_socket is -1), or `milliseconds` passed: 0 when nothing is left to send, 1 on the
/// timeout. To call before mosquitto_disconnect from another thread: libmosquitto 2.0 marks the
/// client disconnected at once, takes any packet that arrives after that as a protocol error and
/// closes the socket with its queue unsent.
int cmosquitto_flush(struct mosquitto *mosq, int milliseconds);
/// Whether the client has a socket (mosquitto_socket is not -1): connected or connecting.
bool cmosquitto_has_connection(struct mosquitto *mosq);

/// A second descriptor of the client's connection (F_DUPFD_CLOEXEC of mosquitto_socket), or -1
/// when it has none: while it is held, libmosquitto's close after its DISCONNECT does not end
/// the connection. To take before mosquitto_disconnect, and give to cmosquitto_await_close
/// once libmosquitto's loop has returned.
int cmosquitto_hold_connection(struct mosquitto *mosq);
/// Ends a connection held by cmosquitto_hold_connection (`held` -1: nothing to do): shuts its
/// sending side (after the DISCONNECT libmosquitto wrote), reads and drops what the broker
/// still sends until it closes the connection (an MQTT broker closes it once it has handled the
/// DISCONNECT, so every packet before that one, the acknowledgements of what was received
/// included, was handled too), or `milliseconds` passed, then closes the descriptor:
/// 0 when the broker closed it, 1 on the timeout.
int cmosquitto_await_close(int held, int milliseconds);

/// The pause, in seconds, before the `failures`-th attempt in a row to reconnect (counted
/// from 1 since the broker last accepted a connection): `failures`, at most `limit` (1 when 0).
/// The attempts come 1, 3, 6, 10, 15 s after a loss, then every `limit` s (5: 20, 25...).
/// libmosquitto's own loop keeps the same schedule when given mosquitto_reconnect_delay_set(1,
/// limit, false); cmosquitto_loop_woken and MQTTClient's restarts of a loop that returned call this.
unsigned int cmosquitto_reconnect_delay(unsigned int failures, unsigned int limit);
/// mosquitto_reconnect: connects again with the last connection's settings (a TLS handshake
/// goes on in the loop).
int cmosquitto_reconnect(struct mosquitto *mosq);

/// What wakes cmosquitto_loop_woken: an eventfd, and whether the loop is asked to stop.
struct cmosquitto_waker;
/// A waker, or NULL (errno set) when no eventfd can be made.
struct cmosquitto_waker *cmosquitto_waker_new(void);
/// Wakes the loop (one eventfd write; wakes since the loop last looked cost nothing more).
void cmosquitto_waker_wake(struct cmosquitto_waker *waker);
/// Asks the loop to stop once the connection is closed (after mosquitto_disconnect's DISCONNECT
/// left), or at once when there is none, and wakes it.
void cmosquitto_waker_stop(struct cmosquitto_waker *waker);
/// Tells the loop that the broker accepted the connection (its CONNACK): the pauses before
/// reconnecting after the next loss start again from the first.
void cmosquitto_waker_accepted(struct cmosquitto_waker *waker);
/// Closes the eventfd and frees the waker; the loop must have returned.
void cmosquitto_waker_free(struct cmosquitto_waker *waker);

/// libmosquitto's network loop on the calling thread, as mosquitto_loop_forever runs it (the
/// client in threaded mode: mosquitto_threaded_set), but woken by `waker` instead of the socket
/// pair libmosquitto writes a byte to for every packet it queues and reads one byte of per
/// pass: whoever queues packets (a batch of publications) calls cmosquitto_waker_wake once
/// after them, and the loop writes them all in one pass, with TCP_CORK set meanwhile, so that
/// they leave in full segments, each pass's at once. It reconnects after a lost connection
/// (on cmosquitto_reconnect_delay's schedule up to `delay_limit`, afresh once the broker accepted
/// a connection: cmosquitto_waker_accepted) and returns 0
/// once asked to stop, or libmosquitto's error code after a fatal error (as
/// mosquitto_loop_forever does: call it again after a pause to go on). Not for TLS.
int cmosquitto_loop_woken(struct mosquitto *mosq, struct cmosquitto_waker *waker, unsigned int delay_limit);

#endif
