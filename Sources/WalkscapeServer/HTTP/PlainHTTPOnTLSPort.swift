import HummingbirdCore
import Logging
import NIOCore

/// An HTTPS port that a client speaks plain HTTP to (an `http://` URL) answers 400 in plain HTTP,
/// saying to use https, and closes: without it the TLS layer closed the connection unanswered, and
/// the client took that for a broken connection and tried again.
///
/// Being first, ahead of the TLS layer, it is also where the connection gate's reset closes the
/// socket (`ConnectionGate.ResetAtTheSocket`): a close from behind the TLS layer first sends a
/// close_notify and waits up to NIOSSL's shutdown timeout (5 s) for the client's, which a client that
/// takes nothing never sends.
struct PlainHTTPOnTLSPort<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // After the TLS layer is set up, then put first, so it sees the bytes before that layer.
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(Guard(), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async { await base.handle(value: value, logger: logger) }

    /// Looks at the first bytes: a TLS record starts with its type (22, a handshake); an HTTP
    /// request with a method's capital letters.
    final class Guard: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
            guard event is ConnectionGate.ResetAtTheSocket else {
                return context.triggerUserOutboundEvent(event, promise: promise)
            }
            context.close(promise: promise)
        }

        /// Set once the first bytes were TLS: everything after passes.
        private var passing = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            guard !passing, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else {
                context.fireChannelRead(data)
                return
            }
            guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else {
                passing = true
                context.fireChannelRead(data)
                return
            }
            let text = "This port speaks HTTPS: use https:// to reach it.\n"
            let answer =
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
                + text
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
        }
    }
}
