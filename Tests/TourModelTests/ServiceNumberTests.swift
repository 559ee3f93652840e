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
