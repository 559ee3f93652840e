import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections are open at once, per client address and in all, and whether one more may
/// be. Without a cap, 20,000 idle sockets from one address took every descriptor the server had,
/// and `/health` went unanswered for as long as they stayed.
final class ConnectionCounts: Sendable {
    /// Connections one address may hold at once: far above a walker's few, a curator's preview and
    /// a load test's 64 (`make bench`).
    static let perAddressDefault = 256

    let perAddress: Int
    private let state = Mutex<(byAddress: [String: Int], open: Int, total: Int)>(([:], 0, Int.max))

    init(perAddress: Int = ConnectionCounts.perAddressDefault) {
        self.perAddress = max(1, perAddress)
    }

    /// The cap on all connections, once the open-file limit is known.
    func limitTotal(to total: Int) { state.withLock { $0.total = max(1, total) } }

    /// Counts one more connection from `address`, or says it is one too many.
    func admit(_ address: String) -> Bool {
        state.withLock { state in
            let held = state.byAddress[address, default: 0]
            guard held < perAddress, state.open < state.total else { return false }
            state.byAddress[address] = held + 1
            state.open += 1
            return true
        }
    }

    func release(_ address: String) {
        state.withLock { state in
            let held = state.byAddress[address, default: 0]
            state.byAddress[address] = held > 1 ? held - 1 : nil
            state.open = max(0, state.open - 1)
        }
    }

    /// Connections open now.
    var open: Int { state.withLock { $0.open } }
}

/// The first handler of each connection's HTTP pipeline: a connection past `ConnectionCounts`'
/// caps is closed at once, before a byte of it is read; the others pass through untouched and are
/// counted until they close. A request whose body has not all arrived `bodyLimit` after its head
/// closes its connection: a body trickled a byte at a time reset the idle timeout at every byte,
/// and held its connection for as long as the client liked.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let counts: ConnectionCounts
    private let bodyLimit: TimeAmount
    private var admitted: String?
    private var deadline: Scheduled<Void>?

    init(_ counts: ConnectionCounts, bodyLimit: TimeAmount) {
        self.counts = counts
        self.bodyLimit = bodyLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: bodyLimit) { bound.value.close(promise: nil) }
        case .body:
            break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if counts.admit(address) {
            admitted = address
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let admitted { counts.release(admitted) }
        admitted = nil
    }
}
