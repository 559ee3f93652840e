import Foundation
import Testing
import TourAPI

/// `Retry-After` in both of its forms (RFC 9110 §10.2.3), against a fixed "now".
struct RetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's own example date.
    let now = Date(timeIntervalSince1970: 784_111_777)

    @Test func secondsAreReadAsSeconds() {
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 7 ", now: now) == .seconds(7))
        #expect(RetryAfter.parse("0", now: now) == .zero)
    }

    /// A wait longer than `RetryAfter.longest` (a day) is read as a day: a long wait, not garbage,
    /// and within what the messages, the timers and the sums made with it can hold (2^63 seconds,
    /// said, stopped the process: exit 132).
    @Test(arguments: [
        "86401", "9223372036854775000", "9223372036854775807", "99999999999999999999999",
        "Fri, 31 Dec 9999 23:59:59 GMT",
    ])
    func aWaitLongerThanADayIsADay(_ value: String) throws {
        let wait = try #require(RetryAfter.parse(value, now: now))
        #expect(wait == RetryAfter.longest)
        #expect(RetryAfter.longest == .seconds(86_400))
        let busy = APIError.status(429, body: nil, request: "GET /tours", retryAfter: wait)
        #expect(busy.message.hasSuffix("try again in 86400 s"), "\(busy.message)")
    }

    @Test func theMessageRoundsAWaitUpToWholeSecondsWhateverItsSize() {
        for (wait, said) in [
            (Duration.milliseconds(1500), "2 s"), (.seconds(7), "7 s"), (.seconds(Int64.max), "\(Int64.max) s"),
            (.zero, "0 s"),
        ] {
            let busy = APIError.status(429, body: nil, request: "GET /tours", retryAfter: wait)
            #expect(busy.message.hasSuffix("try again in \(said)"), "\(busy.message)")
        }
    }

    @Test func imfFixdateIsTheDistanceFromNow() {
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.parse("Mon, 07 Nov 1994 08:49:37 GMT", now: now) == .seconds(86_400))
    }

    @Test func obsoleteDateFormsAreAcceptedToo() {
        #expect(RetryAfter.parse("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.parse("Sun Nov  6 08:49:47 1994", now: now) == .seconds(10))
    }

    @Test func aDateInThePastMeansNoWait() {
        #expect(RetryAfter.parse("Sat, 05 Nov 1994 08:49:37 GMT", now: now) == .zero)
    }

    @Test func anythingElseIsIgnored() {
        for junk in ["", "soon", "-5", "1.5", "12s", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            #expect(RetryAfter.parse(junk, now: now) == nil, "\(junk)")
        }
    }
}
