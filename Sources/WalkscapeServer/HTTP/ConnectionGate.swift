import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How many connections are open at once, per client address and in all, and whether one more may
/// be. Without a cap, 20,000 idle sockets from one address took every descriptor the server had,
/// and `/health` went unanswered for as long as they stayed.
final class ConnectionCounts: Sendable {
    /// Connections one address may hold at once: far above a walker's few, a curator's preview and
    /// a load test's 64 (`make bench`).
    static let perAddressDefault = 256

    let perAddress: Int
    private let state = Mutex<(byAddress: [String: Int], open: Int, total: Int, peak: Int)>(([:], 0, Int.max, 0))

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
            state.peak = max(state.peak, state.open)
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

    /// The most connections open at once since the last call (or the start), and how many are open
    /// now, which the next call's peak starts from.
    func takePeak() -> (peak: Int, open: Int) {
        state.withLock { state in
            defer { state.peak = state.open }
            return (state.peak, state.open)
        }
    }

    /// The connections' notices, which a flood of connections would repeat for each.
    let notices = NoticeLimiter()
}

/// At most one notice of each kind every `every`: a flood of connections each breaking a rule logged
/// a line each (1,430 lines in 5 s). The line that goes says how many were left out before it.
final class NoticeLimiter: Sendable {
    static let every = Duration.seconds(10)

    private let state = Mutex<[String: (last: ContinuousClock.Instant, leftOut: Int)]>([:])

    /// nil: not now (counted); else how many of this kind were left out since the last one logged.
    func allow(_ kind: String, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { kinds in
            if let seen = kinds[kind], now - seen.last < Self.every {
                kinds[kind]?.leftOut += 1
                return nil
            }
            let leftOut = kinds[kind]?.leftOut ?? 0
            kinds[kind] = (now, 0)
            return leftOut
        }
    }

    /// `metadata`, with how many like it were left out when some were.
    static func metadata(_ metadata: Logger.Metadata, leftOut: Int) -> Logger.Metadata {
        var metadata = metadata
        if leftOut > 0 { metadata["left-out"] = "\(leftOut)" }
        return metadata
    }
}

/// The first handler of each connection's HTTP pipeline, after the codec. It keeps a connection
/// from taking more of the server than a client's share:
/// - **Caps.** A connection past `ConnectionCounts`' caps is closed at once, before a byte of it is
///   read; the others are counted until they close.
/// - **A body's deadline.** A request whose body has not all arrived `stallLimit` after its head
///   closes its connection: a body trickled a byte at a time reset the idle timeout at every byte,
///   and held its connection for as long as the client liked.
/// - **Pipelining.** At most `pipelinedAtMost` requests wait for their answers at once; the one
///   past that and all after it are not read: the answers owed are sent, the last saying
///   `Connection: close`, then the server's side is shut (the client reads to the end) and what the
///   client still sends is read and dropped for up to `lingerAtMost` before the connection closes
///   (RFC 9112, 9.6: a close with unread input sends a reset, which drops answers still on their
///   way). The client asks again on a new connection. A client that sent requests back to back and
///   read nothing had the server build answers until the socket's buffers were full (megabytes
///   each), with its requests held in memory meanwhile; 200 such connections kept `/health` waiting
///   for more than 15 s.
/// - **Answers nobody takes.** While answers wait on the client (the channel is not writable: more
///   than NIO's high-water mark queued beyond what the kernel holds), the client must take
///   something within `stallLimit`: enough for the channel to be writable again, or
///   `StallWatch.minimumProgress` bytes it acknowledged (TCP_INFO) since the watch began, looked at
///   when it begins and four times per `stallLimit`. Otherwise the connection is reset (`SO_LINGER`
///   0: the kernel drops what it holds for it at once, where a close left it waiting behind a
///   window that never opened). A JSON answer had no such rule: 400 connections that never read
///   held about 4 MB of the server's memory each, for as long as they stayed. Media answers, whose
///   clients may read slowly for minutes, follow the same rule.
/// - **What the kernel holds.** An answer the kernel's buffers take whole leaves the channel
///   writable, and the idle timeout then closes the connection with the answer still queued: the
///   kernel keeps it for a client that never reads (200 such clients of a 4 MB answer held 760 MB
///   of its memory). Each connection's `TCP_USER_TIMEOUT` is one and a half `stallLimit`s (the
///   watch, which resets and says so, comes first where it can), so the kernel itself drops a
///   connection whose client has acknowledged nothing, or kept its window shut, for that long,
///   before or after the server closed it.
/// - **Closes wait for the last answer.** A close asked for behind this handler waits until the
///   last answer's end is with the kernel: Hummingbird's idle timeout counts from when the end was
///   handed over, and its close dropped what was still queued (a reader at 400 kB/s of a 4 MB
///   answer got 3.9 MB, at a 1 s idle timeout). A shut of the server's side then lingers as past
///   the pipelining limit.
final class ConnectionGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests that may wait for their answers at once on one connection: a client that pipelines
    /// sends a few; none of walkscape's does.
    static let pipelinedAtMost = 32
    /// `TCP_USER_TIMEOUT` (Linux), which Glibc's module leaves out.
    static let tcpUserTimeout = NIOBSDSocket.Option(rawValue: 18)
    /// How long what a refused client still sends is read and dropped, after the last answer.
    static let lingerAtMost = TimeAmount.seconds(5)

    let counts: ConnectionCounts
    private let stallLimit: TimeAmount
    private let logger: Logger?
    private var admitted: String?
    private var deadline: Scheduled<Void>?
    /// Requests read whose answers have not all been written.
    private var owed = 0
    /// Past `pipelinedAtMost`: nothing more is read, and the connection closes once what is owed
    /// is written.
    private var refusing = false
    /// The last answer owed is written and the server's side shut: what arrives is dropped.
    private var lingering = false
    /// The latest request answered or being answered, named in a stall's notice.
    private var latest: HTTPRequest?
    /// The write of the latest answer's end, until it is done: a close asked for by the handlers
    /// behind this one (Hummingbird's idle timeout, the end of its loop, a client's half-close)
    /// waits for it, for a close drops what is still queued.
    private var lastEnd: EventLoopFuture<Void>?
    /// The full close at the end of the lingering.
    private var lingerEnd: Scheduled<Void>?
    private var watch: StallWatch?
    private var looking: RepeatedTask?

    init(_ counts: ConnectionCounts, stallLimit: TimeAmount, logger: Logger? = nil) {
        self.counts = counts
        self.stallLimit = stallLimit
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            owed += 1
            latest = head
            guard owed <= Self.pipelinedAtMost else {
                owed -= 1
                refusing = true
                if let logger, let leftOut = counts.notices.allow("pipelined") {
                    logger.notice(
                        "client pipelined more than \(Self.pipelinedAtMost) requests: those answered, the connection is closed",
                        metadata: NoticeLimiter.metadata(["client": "\(admitted ?? "unknown")"], leftOut: leftOut))
                }
                return
            }
            deadline?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: stallLimit) { bound.value.close(promise: nil) }
        case .body:
            break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    /// Reading stops once requests are refused: the client's further requests wait in its socket.
    func read(context: ChannelHandlerContext) {
        guard !refusing || lingering else { return }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where refusing && owed == 1 && head.status.kind != .informational:
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            owed = max(0, owed - 1)
            let written = promise ?? context.eventLoop.makePromise()
            let future = written.futureResult
            lastEnd = future
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            future.whenComplete { _ in
                if bound.value.0.lastEnd === future { bound.value.0.lastEnd = nil }
            }
            guard refusing, owed == 0 else { return context.write(data, promise: written) }
            // Closed once the last answer is with the kernel: a close drops writes still queued.
            context.writeAndFlush(data, promise: written)
            future.whenComplete { _ in bound.value.0.shutThenDrain(context: bound.value.1, promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stopWatching()
        } else if watch == nil {
            watch = StallWatch(limit: stallLimit, since: .now())
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let every = TimeAmount.nanoseconds(max(1_000_000, stallLimit.nanoseconds / 4))
            looking = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in
                bound.value.0.look(context: bound.value.1)
            }
            // Where the client stands now: what it acknowledges from here on is what it took.
            look(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// A close asked for behind this handler waits for the last answer's end to reach the kernel
    /// (Hummingbird's idle timeout counts from when the end was handed over, and a close then
    /// dropped the end of a slow reader's file); the stall rule bounds the wait. A shut of the
    /// server's side (Hummingbird's, after an answer with `Connection: close`, or a client's
    /// half-close) then lingers as past the pipelining limit, and ends in a close.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if let pending = lastEnd {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            pending.whenComplete { _ in bound.value.0.close(context: bound.value.1, mode: mode, promise: promise) }
            return
        }
        guard mode == .output else { return context.close(mode: mode, promise: promise) }
        shutThenDrain(context: context, promise: promise)
    }

    /// Shuts the server's side, then reads and drops what the client still sends for up to
    /// `lingerAtMost`, and closes.
    private func shutThenDrain(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard !lingering else {
            promise?.succeed()
            return
        }
        (refusing, lingering) = (true, true)
        let shut = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: shut)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        shut.futureResult.whenComplete { outcome in
            let (gate, context) = bound.value
            promise?.completeWith(outcome)
            guard case .success = outcome else { return context.close(promise: nil) }
            context.read()
            gate.lingerEnd = context.eventLoop.scheduleTask(in: Self.lingerAtMost) { bound.value.1.close(promise: nil) }
        }
    }

    private func look(context: ChannelHandlerContext) {
        let channel = context.channel
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        AcknowledgedBytes.of(channel).whenComplete { outcome in
            let (gate, context) = bound.value
            guard var watch = gate.watch else { return }
            let stalled = watch.look(acknowledged: (try? outcome.get()) ?? nil, now: .now())
            gate.watch = watch
            guard stalled else { return }
            gate.stopWatching()
            if let logger = gate.logger, let leftOut = gate.counts.notices.allow("stalled") {
                logger.notice(
                    "client took nothing of its answer for the stall timeout: the connection is reset",
                    metadata: NoticeLimiter.metadata(
                        ["request": "\(gate.latest.map(Self.named) ?? "")", "client": "\(gate.admitted ?? "unknown")"],
                        leftOut: leftOut))
            }
            Self.reset(context)
        }
    }

    private func stopWatching() {
        looking?.cancel()
        looking = nil
        watch = nil
    }

    /// A request as a notice names it: no query (a media link's holds its signature).
    static func named(_ request: HTTPRequest) -> String {
        "\(request.method.rawValue) \(request.path?.split(separator: "?", maxSplits: 1).first ?? "")"
    }

    /// Closes the connection at once, dropping what the kernel holds for it (`SO_LINGER` 0: a
    /// reset), from this handler on: a close waiting for the last answer is not waited for. Under
    /// TLS the close is made ahead of the TLS layer (`ResetAtTheSocket`), which would otherwise
    /// wait up to its shutdown timeout (5 s) for a close_notify the client never sends; where no
    /// handler takes that event (plain HTTP), from here.
    static func reset(_ context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        guard let socket = context.channel as? any SocketOptionProvider else { return context.close(promise: nil) }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            let atTheSocket = bound.value.eventLoop.makePromise(of: Void.self)
            bound.value.triggerUserOutboundEvent(ResetAtTheSocket(), promise: atTheSocket)
            atTheSocket.futureResult.whenFailure { _ in bound.value.close(promise: nil) }
        }
    }

    /// Asks the first handler that knows it to close the connection from where it stands.
    struct ResetAtTheSocket {}

    func handlerAdded(context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if counts.admit(address) {
            admitted = address
            // Past the stall limit and a look after it, so that the watch, which resets the
            // connection and says so, comes first where it can; the kernel's is the backstop.
            if let socket = context.channel as? any SocketOptionProvider {
                let milliseconds = CInt(clamping: (stallLimit.nanoseconds + stallLimit.nanoseconds / 2) / 1_000_000)
                _ = socket.unsafeSetSocketOption(level: .tcp, name: Self.tcpUserTimeout, value: milliseconds)
            }
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        lingerEnd?.cancel()
        lingerEnd = nil
        stopWatching()
        if let admitted { counts.release(admitted) }
        admitted = nil
    }
}

/// Whether a client whose answers wait on it has taken nothing for the stall limit. Taking
/// something is its connection becoming writable again (the gate then stops watching) or
/// `minimumProgress` bytes acknowledged since it last took something: a slow reader may take
/// minutes over a media chunk (512 KiB), and counting whole chunks alone cut off every client
/// slower than about 4 kB/s; a trickle of a segment now and then is taking nothing.
struct StallWatch {
    /// About 550 bytes a second at the default stall limit of 2 minutes.
    static let minimumProgress: UInt64 = 64 << 10

    let limit: TimeAmount
    /// When the client last took something (or the watch began).
    var since: NIODeadline
    /// What it had acknowledged then; nil until first known (the first count is where the client
    /// stands, not something it took).
    var acknowledged: UInt64?

    init(limit: TimeAmount, since: NIODeadline) {
        self.limit = limit
        self.since = since
    }

    /// One look: the bytes acknowledged now (nil: not known), and whether the client has stalled.
    mutating func look(acknowledged now: UInt64?, now time: NIODeadline) -> Bool {
        if let now {
            if let before = acknowledged {
                if now >= before + Self.minimumProgress { (since, acknowledged) = (time, now) }
            } else {
                acknowledged = now
            }
        }
        return time - since > limit
    }
}

/// The bytes a connection's peer has acknowledged so far: TCP_INFO's `tcpi_bytes_acked` (Linux
/// 4.1), which glibc's `tcp_info` does not have (its struct stops earlier). Nil where the channel
/// is not a TCP socket or the kernel does not say.
enum AcknowledgedBytes {
    /// The kernel's `struct tcp_info` up to and with `tcpi_bytes_acked`, at byte 120 of it.
    struct Prefix: Sendable {
        var words:
            (
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    static func of(_ channel: any Channel) -> EventLoopFuture<UInt64?> {
        guard let socket = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let info: EventLoopFuture<Prefix> = socket.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        // A kernel without the field leaves it 0: nothing is known from it.
        return info.map { $0.words.15 == 0 ? nil : $0.words.15 }
    }
}
