import Crypto
import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TestSupport
import Testing
import TourModel

@testable import WalkscapeServer

/// The server's pure parts, without a process.
struct ServerUnitTests {
    @Test(arguments: [
        ("bytes=0-99", ByteRange.partial(0...99)), ("bytes=100-", .partial(100...999)),
        ("bytes=-100", .partial(900...999)),
        ("bytes=-5000", .partial(0...999)), ("bytes=990-5000", .partial(990...999)), ("bytes=1000-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable), ("bytes=5-4", .whole), ("bytes=0-1,4-5", .whole), ("items=0-1", .whole),
        ("bytes=abc", .whole), ("bytes=+1-2", .whole), ("bytes= 10 - 19 ", .partial(10...19)),
        // Positions too large for 64 bits are past any file: a start there is unsatisfiable, an
        // end there is the file's end, a suffix that long is the whole file (RFC 9110 14.1.2).
        ("bytes=99999999999999999999-", .unsatisfiable), ("bytes=0-99999999999999999999", .partial(0...999)),
        ("bytes=-99999999999999999999", .partial(0...999)),
    ])
    func rangeHeaders(header: String, expected: ByteRange) {
        #expect(ByteRange.parse(header, size: 1000) == expected)
    }

    @Test func anyRangeOfAnEmptyFileIsUnsatisfiable() {
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.parse(nil, size: 0) == .whole)
    }

    @Test func signedPathsVerifyAndEveryEditBreaksThem() throws {
        let signer = MediaSigner(key: SymmetricKey(size: .bits256))
        let date = Date(timeIntervalSince1970: 1_777_626_000)
        let path = MediaSigner.path(tourID: "t 1", relativePath: "media/en/01 à.mp3")
        #expect(path == "/media/t%201/media/en/01%20%C3%A0.mp3")
        func query(_ q: String) -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: q.split(separator: "&").map {
                    let kv = $0.split(separator: "=", maxSplits: 1)
                    return (String(kv[0]), String(kv[1]))
                })
        }
        let q = query(signer.query(path: path, date: date, seconds: 60))
        #expect(q["X-Amz-Date"] == "20260501T090000Z" && q["X-Amz-Expires"] == "60")
        #expect(
            signer.check(rawPath: path, query: q, now: date.addingTimeInterval(60))
                == .valid(segments: ["t 1", "media", "en", "01 à.mp3"]))
        // Lower-case escapes are the same path.
        #expect(signer.check(rawPath: "/media/t%201/media/en/01%20%c3%a0.mp3", query: q, now: date) != .mismatch)
        #expect(
            signer.check(rawPath: path, query: q, now: date.addingTimeInterval(61))
                == .expired(expires: date.addingTimeInterval(60), seconds: "60"))
        var longer = q; longer["X-Amz-Expires"] = "6000"
        #expect(signer.check(rawPath: path, query: longer, now: date) == .mismatch)
        var earlier = q; earlier["X-Amz-Date"] = "20260501T085959Z"
        #expect(signer.check(rawPath: path, query: earlier, now: date) == .mismatch)
        #expect(signer.check(rawPath: "/media/t%201/media/en/02.mp3", query: q, now: date) == .mismatch)
        #expect(MediaSigner(key: SymmetricKey(size: .bits256)).check(rawPath: path, query: q, now: date) == .mismatch)
        // A signature is its 64 hex digits and no other spelling: "+a" for "0a" is not the same URL.
        // (A fixed key and the first lifetime whose signature has a byte below 0x10, so this always runs.)
        let fixed = MediaSigner(key: SymmetricKey(data: Data(repeating: 7, count: 32)))
        let respelt = try #require(
            (1...500).lazy.compactMap { seconds -> [String: String]? in
                var signed = query(fixed.query(path: path, date: date, seconds: seconds))
                let signature = Array(signed["X-Amz-Signature"] ?? "")
                guard let at = stride(from: 0, to: signature.count, by: 2).first(where: { signature[$0] == "0" }) else {
                    return nil
                }
                var digits = signature
                digits[at] = "+"
                signed["X-Amz-Signature"] = String(digits)
                return signed
            }.first)
        #expect(fixed.check(rawPath: path, query: respelt, now: date) == .mismatch)
        let signature = try #require(q["X-Amz-Signature"])
        var upper = q; upper["X-Amz-Signature"] = signature.uppercased()
        #expect(signer.check(rawPath: path, query: upper, now: date) != .mismatch)
        var missing = q; missing["X-Amz-Date"] = nil
        if case .malformed = signer.check(rawPath: path, query: missing, now: date) {
        } else {
            Issue.record("missing date accepted")
        }
        if case .malformed = signer.check(rawPath: "/media/t%zz/x", query: q, now: date) {
        } else {
            Issue.record("broken escape accepted")
        }
    }

    /// A media file is opened for an answer without blocking and checked through its descriptor: a
    /// FIFO swapped in after the checks by path held a file-pool thread in `open` until a writer came
    /// (two such stopped every media download). Here the FIFO is refused at once.
    @Test func aMediaFileIsOpenedWithoutWaitingOnAFIFO() async throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.url.appendingPathComponent("swapped.mp3").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: FileAccessError.self) { try OpenedMedia(fifo) }
        let file = try dir.write("real.mp3", "ID3 bytes")
        let opened = try OpenedMedia(file.path)
        // Read through that descriptor, in chunks, up to the end asked for or the file's.
        let head = try #require(try await opened.chunk(at: 0, before: 3, length: 512))
        #expect(String(buffer: head) == "ID3")
        let rest = try #require(try await opened.chunk(at: 4, before: 100, length: 512))
        #expect(String(buffer: rest) == "bytes")
        #expect(try await opened.chunk(at: 9, before: 100, length: 512) == nil)
        #expect(try await opened.chunk(at: 3, before: 3, length: 512) == nil)
    }

    /// The media budget: places are taken up to the limit and given back with the file; the limit
    /// is what the open-file limit leaves, two descriptors an answer after the reserve.
    @Test func mediaAnswersAreCountedWithTheirFilesAndLimitedByTheDescriptors() throws {
        #expect(MediaBudget.allowed(descriptorLimit: 1024, inUse: 20) == (1024 - 20 - MediaBudget.reserve) / 2)
        #expect(MediaBudget.allowed(descriptorLimit: 40, inUse: 20) == 1)
        let budget = MediaBudget(limit: 2)
        budget.lower(to: 5)
        #expect(budget.limit == 2)
        let dir = try TemporaryDirectory()
        let file = try dir.write("real.mp3", "ID3 bytes")
        #expect(budget.take())
        var first: OpenedMedia? = try OpenedMedia(file.path, holding: budget)
        #expect(budget.take())
        // A place taken for a file that cannot be opened is given back at once.
        #expect(throws: FileAccessError.self) {
            try OpenedMedia(dir.url.appendingPathComponent("gone").path, holding: budget)
        }
        #expect(budget.inProgress == 1)
        #expect(budget.take())
        let second = try OpenedMedia(file.path, holding: budget)
        #expect(!budget.take())
        _ = first
        first = nil
        #expect(budget.inProgress == 1)
        #expect(budget.take())
        budget.give()
        _ = second
        budget.lower(to: 0)
        #expect(budget.limit == 1)
    }

    /// An escape is `%` and two hex digits: `%+2` was read as byte 0x02 (a sign is no digit).
    @Test func aPercentEscapeIsTwoHexDigits() {
        #expect(MediaSigner.percentDecode("a%2Fb%2e") == "a/b.")
        for bad in ["%+2", "%-1", "%2", "% 2", "%g0"] {
            #expect(MediaSigner.percentDecode(Substring(bad)) == nil, "\(bad)")
        }
    }

    @Test func emailAddressesAreCheckedLoosely() {
        for good in ["ada@example.org", "a.b+c@sub.example.co"] { #expect(BodyValidator.isEmail(good), "\(good)") }
        for bad in ["", "ada", "@example.org", "ada@", "ada@example", "a da@example.org", "a@b@c.org", "ada@example."] {
            #expect(!BodyValidator.isEmail(bad), "\(bad)")
        }
        // Control characters (an admin's `user add` printed them: ESC[31m) and bidi overrides.
        for bad in [
            "a\u{01}\u{1B}[31m@x.org", "ada\u{7F}@x.org", "ada@x\u{85}.org", "ad\u{202E}a@x.org", "a\u{0}@x.org",
        ] {
            #expect(!BodyValidator.isEmail(bad), "\(bad.unicodeScalars.map(\.value))")
        }
    }

    @Test func faultDiceDependOnlyOnTheSeedAndTheRequestNumber() {
        let a = FaultDice(seed: 7), b = FaultDice(seed: 7), c = FaultDice(seed: 8)
        let rollsA = (0..<50).map { _ in a.next().fault }
        #expect(rollsA == (0..<50).map { _ in b.next().fault })
        #expect(rollsA != (0..<50).map { _ in c.next().fault })
        #expect(rollsA.allSatisfy { (0..<1).contains($0) })
        let share = Double(rollsA.filter { $0 < 0.5 }.count) / 50
        #expect(share > 0.2 && share < 0.8)
    }

    @Test func httpDatesRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
    }

    @Test func descriptionPreviewsCutAtAWord() {
        #expect(TourPresenter.preview("Short.") == "Short.")
        let long = String(repeating: "walk ", count: 60)
        let preview = TourPresenter.preview(long)
        #expect(preview.count <= 201 && preview.hasSuffix("walk…"))
    }

    @Test func aBatchOfManyBadEventsGetsAShortAnswer() async throws {
        // About 100 kB of events, each with an unknown name: the answer used to list every one,
        // with the whole whitelist each time (1.6 to 4.4 MB).
        let events = (0..<1500).map { n in "{\"name\":\"no_such_event_\(n)\",\"tourId\":\"t\"}" }
        let body = "{\"events\":[" + events.joined(separator: ",") + "]}"
        #expect(body.utf8.count > 50_000 && body.utf8.count < 100 * 1024)
        try await InProcessServer.test { http in
            let reply = try await http.post("/analytics/events", raw: body)
            #expect(reply.status == 400)
            #expect(reply.body.count < 20_000, "\(reply.body.count) bytes")
            let messages = reply.error?.messages ?? []
            #expect(messages.count == 51 && messages.last == "and 1450 more problems")
            #expect(messages.first?.hasPrefix("events.0.name must be one of the following values: ") == true)
        }
    }

    @Test func analyticsValidationNamesEveryProblem() throws {
        let body: [String: JSONValue] = ["events": [["name": "login", "tourId": 5, "extra": true]]]
        do {
            _ = try AnalyticsRoutes.validate(body, dialect: .live)
            Issue.record("accepted")
        } catch let error as APIError {
            #expect(error.messages == ["events.0.property extra should not exist", "events.0.tourId must be a string"])
        }
        let ok = try AnalyticsRoutes.validate(["events": [["name": "login", "offline": false]]], dialect: .live)
        #expect(ok == [AnalyticsEvent(name: "login", offline: false)])
    }
}

/// `--throttle` paces like a slow link: after a reader that stopped taking bytes for a while, the
/// rest goes at the same pace, not in a burst that catches up on the pause (it sent 12 MB in 5 s
/// at 800 kB/s after a 10 s stop).
@Suite struct PacingTests {
    /// Takes every write at once, but the first, which waits as a stalled reader makes it wait.
    final class StallingWriter: ResponseBodyWriter, @unchecked Sendable {
        var writes = 0
        let stall: Duration
        init(stall: Duration) { self.stall = stall }
        func write(_ buffer: ByteBuffer) async throws {
            writes += 1
            if writes == 1 { try await Task.sleep(for: stall) }
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    @Test func aReaderThatStoppedAWhileIsNotSentTheBacklogInABurst() async throws {
        let inner = StallingWriter(stall: .milliseconds(800))
        // 100 kB/s, written in slices of 10 kB: 10 slices a second.
        var paced = PacedBodyWriter(inner: inner, bytesPerSecond: 100_000)
        try await paced.write(ByteBuffer(repeating: 0, count: 10_000))
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            try await paced.write(ByteBuffer(repeating: 0, count: 50_000))
        }
        // Five slices at the pace: at least 0.4 s (one slice may go at once), however long the stall.
        #expect(elapsed >= .milliseconds(380), "\(elapsed)")
    }
}
