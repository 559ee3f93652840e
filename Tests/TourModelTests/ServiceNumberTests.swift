import Foundation
import Testing

@testable import TourModel

/// Numbers from the service are held to a tour folder's limits (`TourLimits`), where they are read:
/// NaN, infinities, 1e308 and sizes past Int64 are refused naming the field, never trapped on
/// later (a trap in `Int64(Double)`, a sum, or a minutes count used to kill the client, exit 132).
struct ServiceNumberTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try WalkscapeJSON.decoder().decode(T.self, from: Data(json.utf8))
    }

    /// The decoding error's own words.
    func refusal<T: Decodable>(_ type: T.Type, _ json: String) -> String? {
        do {
            _ = try decode(type, json)
            return nil
        } catch let DecodingError.dataCorrupted(context) {
            return context.debugDescription
        } catch {
            return "\(error)"
        }
    }

    static func manifest(size: String) -> String {
        """
        {"tourId":"t","language":"en","version":"1","audio":[{"pointId":"p1","order":1,"fileUrl":"https://m/1.mp3","fileSizeBytes":\(size)}],"subtitles":[],"images":[]}
        """
    }

    @Test(arguments: ["1e19", "\"nan\"", "\"-inf\"", "9223372036854775807", "-1", "68719476737"])
    func aFileSizeOutsideTheLimitsIsRefused(_ size: String) {
        let why = refusal(TourManifest.self, Self.manifest(size: size))
        #expect(why?.hasPrefix("fileSizeBytes ") == true, "\(size): \(why ?? "accepted")")
    }

    /// A size is a whole number of bytes, and a numeric string is a decimal number: a hex float
    /// ("0x1A6DA") or a fraction ("108250.5") was read as a size (the fraction cut off).
    @Test(arguments: ["\"108250.5\"", "108250.5", "\"0x1A6DA\"", "\"1e5x\"", "\"12 34\"", "\"+5\"", "\".5\"", "\"5.\""])
    func aSizeThatIsNotAWholeDecimalNumberIsRefused(_ size: String) {
        let why = refusal(TourManifest.self, Self.manifest(size: size))
        #expect(why?.contains("fileSizeBytes") == true, "\(size): \(why ?? "accepted")")
    }

    @Test(arguments: [
        ("\"108250\"", 108_250), ("108250", 108_250), ("\"1.0825e5\"", 108_250), ("\" 42 \"", 42), ("1E3", 1000),
    ])
    func wholeDecimalSizesAreRead(_ size: String, _ bytes: Int64) throws {
        #expect(try decode(TourManifest.self, Self.manifest(size: size)).audio.first?.sizeBytes == bytes)
    }

    @Test func sizesWithinTheLimitsAddUpWithoutATrap() throws {
        let manifest = try decode(TourManifest.self, Self.manifest(size: "68719476736"))
        #expect(manifest.audio.first?.sizeBytes == 68_719_476_736)
        var many = manifest
        let huge = MediaFile(pointID: "p", url: "https://m/x", sizeBytes: .max)
        many.audio = [huge, huge]
        #expect(many.totalBytes == .max)
    }

    @Test(arguments: [
        ("durationMinutes", "\"NaN\""), ("durationMinutes", "\"inf\""), ("durationMinutes", "1e308"),
        ("distanceKm", "\"NaN\""), ("distanceKm", "-3"), ("distanceKm", "1e300"),
    ])
    func aToursMinutesAndKilometresOutsideTheLimitsAreRefused(field: String, value: String) {
        let summary = """
            [{"id":"t","slug":"s","title":{"en":"T"},"descriptionPreview":{},"city":"Rome",
              "difficulty":"easy","languages":["en"],"isProtected":false,"\(field)":\(value)}]
            """
        let why = refusal([TourSummary].self, summary)
        #expect(why?.hasPrefix(field) == true, "\(field) \(value): \(why ?? "accepted")")
        let detail = """
            {"id":"t","slug":"s","title":"T","description":"","languages":["en"],"\(field)":\(value)}
            """
        let detailWhy = refusal(TourDetail.self, detail)
        #expect(detailWhy?.hasPrefix(field) == true, "\(field) \(value): \(detailWhy ?? "accepted")")
    }

    /// -0 is within 0...1000, and is read as 0: shown, it was "-0.0 km".
    @Test(arguments: ["-0", "\"-0\"", "-0.0", "\"-0.0e3\""])
    func minusZeroIsZero(_ value: String) throws {
        let summary = """
            [{"id":"t","slug":"s","title":{"en":"T"},"descriptionPreview":{},"city":"Rome",
              "difficulty":"easy","languages":["en"],"isProtected":false,"distanceKm":\(value),"durationMinutes":\(value)}]
            """
        let tour = try #require(try decode([TourSummary].self, summary).first)
        #expect(tour.distanceKm?.sign == .plus && tour.distanceKm == 0)
        #expect(tour.durationMinutes?.sign == .plus)
        #expect(String(format: "%.1f", tour.distanceKm ?? 1) == "0.0")
    }

    @Test(arguments: ["1e308", "0", "-5", "\"NaN\"", "1000.5"])
    func aTriggerRadiusOutsideTheLimitsIsRefused(_ radius: String) {
        let why = refusal(
            [TourPoint].self,
            #"[{"id":"p","order":1,"title":"P","location":{"lat":45,"lng":11},"triggerRadiusMeters":\#(radius)}]"#)
        #expect(why?.hasPrefix("triggerRadiusMeters") == true, "\(radius): \(why ?? "accepted")")
    }

    @Test func theFoldersLimitsAreTheSame() throws {
        // A tour folder and the service refuse the same radius with the same bound.
        #expect(
            TourLimits.problem(1e308, TourLimits.triggerRadiusMeters) == "1e+308 is not within 0 (exclusive)...1000")
        #expect(TourLimits.problem(.nan, TourLimits.durationMinutes) == "is not a number")
        #expect(TourLimits.problem(30, TourLimits.triggerRadiusMeters) == nil)
        let ok = try decode(
            [TourPoint].self,
            #"[{"id":"p","order":1,"title":"P","location":{"lat":"45.1","lng":11},"triggerRadiusMeters":"1000"}]"#)
        #expect(ok.first?.triggerRadiusMeters == 1000)
    }
}
