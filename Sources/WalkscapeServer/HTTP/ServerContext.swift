import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the connection, which the reset fault
/// closes mid-response.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
