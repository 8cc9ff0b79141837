import MQTTClient

extension BrokerAddress {
  /// The broker a `--broker` argument names, with libmosquitto loaded to reach it: a usage error
  /// (exit 2) for an address that is not `mqtt://HOST:PORT`, or when libmosquitto is missing.
  init(argument text: String) throws(CommandError) {
    do throws(MQTTError) {
      self = try BrokerAddress(parsing: text)
      try MQTTClient.load()
    } catch {
      throw .usage(error.description)
    }
  }
}
