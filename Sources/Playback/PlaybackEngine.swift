import Foundation

/// The playback thread behind `AudioQueue`.
///
/// Decoding and ALSA writes block, so they run on one dedicated thread, never on Swift's
/// cooperative pool. The actor talks to it only through the small control state below, guarded by
/// a condition variable; the thread waits on it when idle or paused (no polling).
final class PlaybackEngine: @unchecked Sendable {
    enum Source: Sendable {
        case file(URL)
        case data(Data, name: String)
    }

    struct Item: Sendable {
        var id: String
        var source: Source
        /// The item's own level (loudness levelling), a factor on its samples beside the volume.
        var level: Float = 1
        /// The level when the item turns out to be mono: it plays on both channels 3 dB down
        /// (libswresample's upmix), so its peaks leave 3 dB more room under the ceiling. Nil: `level`.
        var monoLevel: Float?
        /// A stereo item recorded on this channel alone (`Loudness.onlyChannel`): played as mono.
        var onlyChannel: Int?
    }

    /// The output is opened in stereo at the first item's rate, or at this rate when the first is
    /// lower: every later item is converted to it, so a mono or 8 kHz first narration must not
    /// make the whole walk mono (stereo narrations 3 dB down) or 8 kHz (muffled).
    static let lowestOutputRate = 44_100
    /// Nor a studio rate: a first narration at 192 kHz had every later one resampled to it, four
    /// times the CPU of the walk on a handheld's battery, for nothing a voice needs.
    static let highestOutputRate = 48_000
    static func outputFormat(first: PCMFormat) -> PCMFormat {
        PCMFormat(sampleRate: min(max(first.sampleRate, lowestOutputRate), highestOutputRate), channels: 2)
    }

    enum Interrupt: Sendable { case skip, stop }

    let sink: any PCMSink
    private let emit: AsyncStream<AudioQueue.Event>.Continuation
    private let fadeSeconds: Double
    private let positionInterval: Double?

    // Control state, shared with the actor: only touched with `condition` locked.
    private let condition = NSCondition()
    private var pending: [Item] = []
    private var current: String?
    private var interrupt: Interrupt?
    private var paused = false
    private var volume: Float = 1
    private var shuttingDown = false
    private var exited = false
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []

    // Playback state: only touched by the playback thread.
    private var format: PCMFormat?
    /// The current item's conversion to `format`, when its own differs.
    private var converter: SampleConverter?
    private var written = 0
    private var gain: Float = 1
    private var marks: [(frame: Int, event: AudioQueue.Event)] = []
    private var heard: (id: String, start: Int)?
    private var lastPosition = 0

    init(
        sink: any PCMSink, fadeSeconds: Double, positionInterval: Double?,
        emit: AsyncStream<AudioQueue.Event>.Continuation
    ) {
        self.sink = sink
        self.fadeSeconds = fadeSeconds
        self.positionInterval = positionInterval
        self.emit = emit
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "walkscape-audio"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: control, called from the actor

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.signal(); condition.unlock() }
        return body()
    }

    func enqueue(_ item: Item) { locked { if !shuttingDown { pending.append(item) } } }
    func setPaused(_ value: Bool) { locked { paused = value } }
    func setVolume(_ value: Float) { locked { volume = value } }
    var isPaused: Bool { locked { paused } }
    var currentID: String? { locked { current } }
    var pendingIDs: [String] { locked { pending.map(\.id) } }

    func skip() { locked { if current != nil { interrupt = .skip } } }

    func stop() {
        locked {
            pending.removeAll()
            if current != nil { interrupt = .stop }
            paused = false
        }
    }

    /// Stops, closes the sink, ends the event stream, and returns once the thread is gone.
    func shutdown() async {
        requestShutdown()
        await withCheckedContinuation { continuation in
            let done = locked { () -> Bool in
                if exited { return true }
                exitWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    func requestShutdown() {
        locked {
            shuttingDown = true
            pending.removeAll()
            if current != nil { interrupt = .stop }
            paused = false
        }
    }

    // MARK: the playback thread

    private func run() {
        while let item = nextItem() {
            play(item)
            let idle = locked { () -> Bool in
                current = nil
                interrupt = nil
                return pending.isEmpty
            }
            if idle {
                // Nothing follows: let the device play out so `finished` is reported when it is heard.
                try? sink.drain()
                flushMarks(upTo: .max)
            }
        }
        try? sink.close()
        flushMarks(upTo: .max)
        emit.finish()
        let waiters = locked { () -> [CheckedContinuation<Void, Never>] in
            exited = true
            defer { exitWaiters.removeAll() }
            return exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func nextItem() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !shuttingDown { condition.wait() }
        guard !shuttingDown else { return nil }
        let item = pending.removeFirst()
        current = item.id
        interrupt = nil
        return item
    }

    private func play(_ item: Item) {
        var decoder: any AudioDecoder
        do {
            switch item.source {
            case .file(let url): decoder = try AudioDecoders.open(url)
            case .data(let data, let name): decoder = try AudioDecoders.open(data: data, name: name)
            }
            if let channel = item.onlyChannel, decoder.format.channels == 2 {
                decoder = OneChannelDecoder(decoder, channel: channel)
            }
            if format == nil {
                // The first item sets the output's rate (stereo, at least 44.1 kHz); the device
                // stays open at it.
                let output = Self.outputFormat(first: decoder.format)
                try sink.configure(output)
                format = output
                written = 0
                lastPosition = 0
            }
            if let format, decoder.format != format {
                // Another rate or channel count: converted (libswresample), not a reopened device.
                converter = try SampleConverter(from: decoder.format, to: format)
            } else {
                converter = nil
            }
        } catch {
            // After what is still being heard of the previous item, so events stay in order.
            marks.append((written, .failed(id: item.id, message: error.message)))
            flushMarks(upTo: sink.playedFrames)
            return
        }
        guard let format else { return }
        let start = written
        marks.append((start, .started(id: item.id)))
        // A decoder that levels its own output (libmpg123's synthesis, FFmpeg's float) leaves the
        // queue only the volume, and takes a mono item's upmix 3 dB down with the level: then
        // nothing is cut at full scale before the upmix (a mono MP3 mastered past full scale,
        // turned down, had its peaks flattened at 32767/√2), and the upmix only doubles the
        // channel. The level never takes peaks past full scale (`LoudnessTarget.gainDB`). At
        // unity the decoder's samples go out as they are (the upmix rounds once).
        let upmixed = decoder.format.channels == 1 && format.channels == 2
        let own = upmixed ? item.monoLevel ?? item.level : item.level
        let inDecoder = own == 1 ? 1 : upmixed ? own * Float(0.5.squareRoot()) : own
        let level = inDecoder != 1 && decoder.applyLevel(inDecoder) ? own / inDecoder : own
        gain = locked { volume } * level
        let fadeFrames = max(1, Int(fadeSeconds * Double(format.sampleRate)))
        var leftover: UnsafeMutableRawBufferPointer?
        var stoppedEarly = false

        do {
            loop: while true {
                condition.lock()
                let (interrupt, paused, target) = (self.interrupt, self.paused, self.volume * level)
                condition.unlock()
                if interrupt != nil {
                    try fadeOut(decoder, leftover: leftover, frames: fadeFrames)
                    stoppedEarly = true
                    break loop
                }
                if paused {
                    leftover = try fadeOut(decoder, leftover: leftover, frames: fadeFrames)
                    try sink.drain()
                    flushMarks(upTo: written)
                    reportPosition(played: written, force: true)
                    waitWhilePaused()
                    continue loop
                }
                let chunk: UnsafeMutableRawBufferPointer
                var scaled = false
                if let rest = leftover {
                    chunk = rest
                    leftover = nil
                } else if let next = try nextChunk(decoder, steadyGain: gain == target ? gain : nil) {
                    (chunk, scaled) = next
                } else {
                    break loop
                }
                if chunk.isEmpty { continue loop }
                if !scaled { applyGain(chunk, toward: target, channels: format.channels, fadeFrames: fadeFrames) }
                try sink.write(UnsafeRawBufferPointer(chunk))
                written += chunk.count / format.bytesPerFrame
                let played = sink.playedFrames
                flushMarks(upTo: played)
                reportPosition(played: played, force: false)
            }
        } catch {
            // The device failed mid-item (or the decoder on its first frame): report and move on.
            marks.append((written, .failed(id: item.id, message: error.message)))
            flushMarks(upTo: .max)
            return
        }
        if let damage = decoder.damage {
            marks.append((written, .warning(id: item.id, message: "\(decoder.name): \(damage)")))
        }
        if stoppedEarly {
            let seconds = Double(written - start) / Double(format.sampleRate)
            marks.append((written, .stopped(id: item.id, seconds: seconds)))
        } else {
            marks.append((written, .finished(id: item.id)))
        }
        flushMarks(upTo: sink.playedFrames)
    }

    /// The decoder's next chunk in the output's format: through the converter when the item's
    /// format differs, whose tail comes once the decoder has ended. With a `steadyGain` (not
    /// gliding), a mono item upmixed at its own rate takes it in the upmix's pass: `scaled`.
    private func nextChunk(
        _ decoder: any AudioDecoder, steadyGain: Float?
    ) throws(PlaybackError) -> (UnsafeMutableRawBufferPointer, scaled: Bool)? {
        guard let converter else { return try decoder.nextChunk().map { ($0, false) } }
        if let chunk = try decoder.nextChunk() {
            if let steadyGain, converter.upmixOnly { return (converter.upmix(chunk, gain: steadyGain), true) }
            return try converter.convert(chunk).map { ($0, false) }
        }
        return try converter.convert(nil).map { ($0, false) }
    }

    private func waitWhilePaused() {
        condition.lock()
        while paused && interrupt == nil && !shuttingDown { condition.wait() }
        condition.unlock()
    }

    /// Ramps the gain to zero over `frames` frames of upcoming audio, writes them, and returns what
    /// is left of the last chunk so a pause can resume exactly where the fade ended.
    @discardableResult
    private func fadeOut(
        _ decoder: any AudioDecoder, leftover: UnsafeMutableRawBufferPointer?,
        frames: Int
    ) throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        guard let format, gain > 0 else { return leftover }
        var remaining = frames
        var pending = leftover
        let step = gain / Float(frames)
        while remaining > 0 {
            let chunk: UnsafeMutableRawBufferPointer
            if let rest = pending {
                chunk = rest
                pending = nil
            } else if let (next, _) = try nextChunk(decoder, steadyGain: nil) {
                chunk = next
            } else {
                break
            }
            if chunk.isEmpty { continue }
            let samples = chunk.bindMemory(to: Int16.self)
            let chunkFrames = samples.count / format.channels
            let count = min(chunkFrames, remaining)
            for frame in 0..<count {
                gain = max(0, gain - step)
                for c in 0..<format.channels {
                    let i = frame * format.channels + c
                    samples[i] = Int16((Float(samples[i]) * gain).rounded())
                }
            }
            try sink.write(UnsafeRawBufferPointer(rebasing: chunk[0..<count * format.bytesPerFrame]))
            written += count
            remaining -= count
            if count < chunkFrames {
                pending = UnsafeMutableRawBufferPointer(rebasing: chunk[(count * format.bytesPerFrame)...])
            }
        }
        gain = 0
        return pending
    }

    /// Scales samples by the gain, moving it toward `target` by at most 1/`fadeFrames` per frame, so
    /// volume changes and resumes glide instead of clicking. Untouched at unity gain; a gain above
    /// one (a quiet narration levelled up) saturates rather than wraps.
    private func applyGain(_ chunk: UnsafeMutableRawBufferPointer, toward target: Float, channels: Int, fadeFrames: Int)
    {
        if gain == target && target == 1 { return }
        let samples = chunk.bindMemory(to: Int16.self)
        if gain == target {
            // A steady gain (a levelled narration): fixed point, which the compiler vectorises.
            Self.scale(samples, by: gain)
            return
        }
        let step = 1 / Float(fadeFrames)
        for frame in 0..<(samples.count / channels) {
            if gain < target {
                gain = min(target, gain + step)
            } else if gain > target {
                gain = max(target, gain - step)
            }
            for c in 0..<channels {
                let i = frame * channels + c
                samples[i] = Int16(max(-32768, min(32767, (Float(samples[i]) * gain).rounded())))
            }
        }
    }

    /// Multiplies every sample by `factor` (at most 32, as levelling's +30 dB is 31.6), rounding to
    /// nearest and saturating at full scale.
    static func scale(_ samples: UnsafeMutableBufferPointer<Int16>, by factor: Float) {
        let q = Int32((min(32, max(0, factor)) * 1024).rounded())
        guard let base = samples.baseAddress else { return }
        // Without a branch, so the compiler vectorises it (a levelled MP3 spent a tenth of its
        // CPU here): half away from zero, as Float's rounded() does, is (p + 512) >> 10 for p >= 0
        // and (p + 511) >> 10 for p < 0, that is (p + 512 + (p >> 31)) >> 10 with arithmetic shifts.
        for i in 0..<samples.count {
            let product = Int32(base[i]) &* q
            let value = (product &+ 512 &+ (product &>> 31)) &>> 10
            base[i] = Int16(truncatingIfNeeded: min(32767, max(-32768, value)))
        }
    }

    /// Emits every event whose frame the listener has now heard.
    private func flushMarks(upTo played: Int) {
        var flushed = 0
        for mark in marks {
            guard mark.frame <= played else { break }
            flushed += 1
            switch mark.event {
            case .started(let id):
                heard = (id, mark.frame)
                lastPosition = mark.frame
            case .finished, .stopped, .failed:
                heard = nil
            default:
                break
            }
            emit.yield(mark.event)
        }
        marks.removeFirst(flushed)
    }

    private func reportPosition(played: Int, force: Bool) {
        guard let heard, let format, let positionInterval else { return }
        let played = min(played, written)
        let interval = Int(positionInterval * Double(format.sampleRate))
        guard force || played - lastPosition >= interval else { return }
        lastPosition = played
        emit.yield(.position(id: heard.id, seconds: Double(max(0, played - heard.start)) / Double(format.sampleRate)))
    }
}
