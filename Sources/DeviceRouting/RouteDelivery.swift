/// What a route caught: a deep link or a push notification.
public enum RouteDelivery: Sendable, Hashable {
  case deepLink(DeepLink)
  case push(PushNotification)

  /// What a route passes on: the URL's UTF-8, or the push's payload as given.
  public var bytes: [UInt8] {
    switch self {
    case .deepLink(let link): Array(link.url.utf8)
    case .push(let push): push.bytes
    }
  }

  /// Which kind it is.
  public var kind: RouteKind {
    switch self {
    case .deepLink: .deepLink
    case .push: .push
    }
  }
}
