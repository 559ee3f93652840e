import Foundation
import Testing

@testable import TourModel

/// Every endpoint body in both dialects, from literal JSON shaped as docs/api-contract.md (live) and the
/// published mobile guide (guide) show them.
struct APIDialectTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try WalkscapeJSON.decoder().decode(T.self, from: Data(json.utf8))
    }

    // MARK: GET /tours

    @Test func tourListLiveDialect() throws {
        let tours = try decode(
            [TourSummary].self,
            """
            [{"id":"550e8400-e29b-41d4-a716-446655440000","slug":"milan-historic-center",
              "title":{"en":"Historic Center of Milan","it":"Centro Storico di Milano"},
              "descriptionPreview":{"en":"A sonic journey","it":"Un viaggio sonoro"},
              "completionMessage":{"en":"Thanks!"},"busInfo":{"en":"Tram 1"},
              "city":"Milan","durationMinutes":90,"distanceKm":"3.50","difficulty":"easy",
              "languages":["en","it"],"isProtected":true,"imageUrl":"https://cdn/x.jpg",
              "coverTrailerUrl":null,"routePolyline":"45.4642,9.19;45.4685,9.1824","hasAccess":false},
             {"id":"b","slug":"unpublished","title":{},"descriptionPreview":{},"city":"Rome",
              "durationMinutes":10,"distanceKm":1,"difficulty":"easy","languages":[],"isProtected":false}]
            """)
        #expect(tours.count == 2)
        let t = tours[0]
        #expect(t.id == "550e8400-e29b-41d4-a716-446655440000")
        #expect(t.title["it"] == "Centro Storico di Milano")
        #expect(t.descriptionPreview["en"] == "A sonic journey")
        #expect(t.completionMessage["en"] == "Thanks!")
        #expect(t.busInfo["en"] == "Tram 1")
        #expect(t.distanceKm == 3.5)  // Postgres decimals arrive as strings
        #expect(t.durationMinutes == 90)
        #expect(t.languages == ["en", "it"])
        #expect(t.isProtected && t.hasAccess == false)
        #expect(t.imageURL == "https://cdn/x.jpg" && t.coverTrailerURL == nil)
        #expect(t.route.count == 2 && t.route[1] == Coordinate(latitude: 45.4685, longitude: 9.1824))
        #expect(t.isPublished)
        #expect(!tours[1].isPublished)
        #expect(tours[1].hasAccess == nil)  // only sent when authenticated
    }

    /// A tour or point without an id is refused where it is read: an empty tour id made `show`
    /// ask for `/tours/?language=en` and print the decoder's words about what came back.
    @Test func anEmptyIdIsRefused() throws {
        for id in ["\"\"", "\"  \""] {
            let list = #"[{"id":\#(id),"slug":"s","title":{"en":"T"},"languages":["en"],"isProtected":false}]"#
            #expect(throws: DecodingError.self) { try decode([TourSummary].self, list) }
            let detail = #"{"id":\#(id),"slug":"s","title":"T","description":"","languages":["en"]}"#
            #expect(throws: DecodingError.self) { try decode(TourDetail.self, detail) }
        }
        let fine = #"[{"id":"t1","slug":"s","title":{"en":"T"},"languages":["en"],"isProtected":false}]"#
        #expect(try decode([TourSummary].self, fine).first?.id == "t1")
    }

    /// An id or slug holding a control character (NUL above all) is refused where it is read: the
    /// catalog kept only what came before a NUL, so a point's narration was filed under another
    /// point's id and `verify` could not tell.
    @Test func anIdOrSlugWithAControlCharacterIsRefused() throws {
        for bad in [#""t\u0000x""#, #""t\u001bx""#, #""t\u007fx""#, #""t\u0085x""#] {
            let asID = #"[{"id":\#(bad),"slug":"s","title":{"en":"T"},"languages":["en"],"isProtected":false}]"#
            #expect(throws: DecodingError.self) { try decode([TourSummary].self, asID) }
            let asSlug = #"[{"id":"t","slug":\#(bad),"title":{"en":"T"},"languages":["en"],"isProtected":false}]"#
            #expect(throws: DecodingError.self) { try decode([TourSummary].self, asSlug) }
            let detail = #"{"id":"t","slug":\#(bad),"title":"T","description":"","languages":["en"]}"#
            #expect(throws: DecodingError.self) { try decode(TourDetail.self, detail) }
            let point =
                #"[{"id":\#(bad),"order":1,"location":{"lat":44.5,"lng":11.3},"triggerRadiusMeters":30,"title":"P"}]"#
            #expect(throws: DecodingError.self) { try decode([TourPoint].self, point) }
            let manifest =
                #"{"tourId":"t","language":"en","version":"1","audio":[{"pointId":\#(bad),"order":1,"fileUrl":"https://m/1.mp3","fileSizeBytes":5}],"subtitles":[],"images":[]}"#
            #expect(throws: DecodingError.self) { try decode(TourManifest.self, manifest) }
        }
        let fine = #"[{"id":"t-1_é","slug":"s","title":{"en":"T"},"languages":["en"],"isProtected":false}]"#
        #expect(try decode([TourSummary].self, fine).first?.id == "t-1_é")
    }

    @Test func tourListGuideDialect() throws {
        let tours = try decode(
            [TourSummary].self,
            """
            [{"id":"550e8400-e29b-41d4-a716-446655440000","slug":"milan-historic-center","isProtected":false,"hasAccess":true,
              "versions":[{"id":"660e8400-e29b-41d4-a716-446655440001","language":"it","title":"Centro Storico di Milano",
                "description":"Un viaggio sonoro...","city":"Milan","durationMinutes":90,"distanceKm":3.5,
                "coverImageUrl":"https://cdn.example.com/covers/milan.jpg"},
                {"id":"660e8400-e29b-41d4-a716-446655440002","language":"en","title":"Historic Center of Milan",
                "description":"A sonic journey...","city":"Milan","durationMinutes":90,"distanceKm":3.5,"coverImageUrl":null}]}]
            """)
        let t = try #require(tours.first)
        #expect(t.slug == "milan-historic-center")
        #expect(t.languages == ["it", "en"])
        #expect(t.title == ["it": "Centro Storico di Milano", "en": "Historic Center of Milan"])
        #expect(t.descriptionPreview["en"] == "A sonic journey...")
        #expect(t.city == "Milan" && t.distanceKm == 3.5 && t.durationMinutes == 90)
        #expect(t.imageURL == "https://cdn.example.com/covers/milan.jpg")
        #expect(t.hasAccess == true && !t.isProtected)
    }

    // MARK: GET /tours/:id

    @Test func tourDetailLiveDialect() throws {
        let t = try decode(
            TourDetail.self,
            """
            {"id":"t1","slug":"bologna","title":"Under the Porticoes","description":"Long text","completionMessage":"Bravo",
             "busInfo":null,"city":"Bologna","durationMinutes":25,"distanceKm":1.4,"difficulty":"easy","languages":["en","it"],
             "isProtected":false,"hasAccess":true,"imageUrl":null,"coverTrailerUrl":null,
             "startingPoint":{"lat":null,"lng":null},"routePolyline":"44.4938,11.3430;44.4949,11.3465","downloadInfo":{"placeholder":true}}
            """)
        #expect(t.title == "Under the Porticoes" && t.description == "Long text")
        #expect(t.completionMessage == "Bravo" && t.busInfo == nil)
        #expect(t.startingPoint == nil)  // nulls mean "not set", not (0, 0)
        #expect(t.route.count == 2)
        #expect(t.languages == ["en", "it"] && t.hasAccess == true)
        #expect(t.pointCount == nil)
    }

    @Test func tourDetailGuideDialect() throws {
        let t = try decode(
            TourDetail.self,
            """
            {"id":"550e8400-e29b-41d4-a716-446655440000","slug":"milan-historic-center","isProtected":false,"hasAccess":true,
             "version":{"id":"660e8400-e29b-41d4-a716-446655440001","language":"en","title":"Historic Center of Milan",
               "description":"A sonic journey through Milan's history...","startingPoint":{"lat":45.464211,"lng":9.191383},
               "city":"Milan","durationMinutes":90,"distanceKm":3.5,"coverImageUrl":"https://cdn.example.com/covers/milan.jpg","videoUrl":null},
             "pointCount":15}
            """)
        #expect(t.title == "Historic Center of Milan")
        #expect(t.language == "en" && t.languages == ["en"])
        #expect(t.startingPoint == Coordinate(latitude: 45.464211, longitude: 9.191383))
        #expect(t.pointCount == 15 && t.city == "Milan" && t.distanceKm == 3.5)
        #expect(t.imageURL == "https://cdn.example.com/covers/milan.jpg")
    }

    // MARK: GET /tours/:id/points

    @Test func pointsLiveDialect() throws {
        let points = try decode(
            [TourPoint].self,
            """
            [{"id":"p1","order":1,"title":"Piazza","description":"Where it starts","location":{"lat":44.4938,"lng":11.343},"triggerRadiusMeters":30},
             {"id":"p2","order":2,"title":"Towers","description":"","location":{"lat":"44.4942","lng":"11.3465"},"triggerRadiusMeters":"25.5"}]
            """)
        #expect(points.map(\.order) == [1, 2])
        #expect(points[0].coordinate == Coordinate(latitude: 44.4938, longitude: 11.343))
        #expect(points[0].title == "Piazza" && points[0].description == "Where it starts")
        #expect(points[1].triggerRadiusMeters == 25.5)
        #expect(points[0].audioURL == nil)
    }

    @Test func pointsGuideDialect() throws {
        let points = try decode(
            [TourPoint].self,
            """
            [{"id":"770e8400-e29b-41d4-a716-446655440010","order":1,"lat":45.464211,"lng":9.191383,"triggerRadiusMeters":150,
              "localization":{"title":"Duomo di Milano","contentText":"Welcome to the Duomo...",
                "audioUrl":"https://cdn.example.com/audio/point-1.mp3","imageUrl":"https://cdn.example.com/images/duomo.jpg"}}]
            """)
        let p = try #require(points.first)
        #expect(p.title == "Duomo di Milano" && p.description == "Welcome to the Duomo...")
        #expect(p.coordinate == Coordinate(latitude: 45.464211, longitude: 9.191383))
        #expect(p.triggerRadiusMeters == 150)
        #expect(p.audioURL == "https://cdn.example.com/audio/point-1.mp3")
    }

    @Test func pointWithImpossibleCoordinateIsRejected() {
        #expect(throws: DecodingError.self) {
            try decode(
                [TourPoint].self, #"[{"id":"p","order":1,"location":{"lat":91,"lng":0},"triggerRadiusMeters":30}]"#)
        }
        #expect(throws: DecodingError.self) {
            try decode(
                [TourPoint].self, #"[{"id":"p","order":1,"location":{"lat":1,"lng":0},"triggerRadiusMeters":0}]"#)
        }
    }

    // MARK: GET /tours/:id/manifest

    @Test func manifestLiveDialectReadsPresignedExpiry() throws {
        let m = try decode(
            TourManifest.self,
            """
            {"tourId":"t1","language":"en","version":3,
             "audio":[{"pointId":"p1","order":1,"fileUrl":"https://bucket.s3.amazonaws.com/a/p1.mp3?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400&X-Amz-Signature=abc","fileSizeBytes":123456}],
             "images":[{"pointId":"p1","fileUrl":"http://127.0.0.1:8080/media/p1.jpg","fileSizeBytes":999}],
             "subtitles":[{"pointId":"p1","language":"en","fileUrl":"http://127.0.0.1:8080/media/p1.srt","fileSizeBytes":512}],
             "offlineMap":{"tilesUrlTemplate":"https://tiles.example.invalid/{z}/{x}/{y}.png","bounds":{"north":44.5,"south":44.4,"east":11.4,"west":11.3},"recommendedZoomLevels":[14,15,16]}}
            """)
        #expect(m.tourID == "t1" && m.language == "en" && m.version == "3")
        #expect(m.audio.count == 1 && m.audio[0].sizeBytes == 123456 && m.audio[0].order == 1)
        #expect(m.subtitles[0].language == "en")
        #expect(m.totalBytes == 123456 + 999 + 512)
        #expect(m.audio[0].expiresAt == ISO8601.parse("2026-05-02T09:00:00Z"))
        #expect(m.images[0].expiresAt == nil)  // a local backend's plain URL never expires
        #expect(m.offlineMap?.recommendedZoomLevels == [14, 15, 16])
        #expect(m.offlineMap?.bounds?.north == 44.5)
    }

    /// `X-Amz-Date` is a time that exists, in digits only: hour 25, day 32, or a sign were read.
    @Test func anAmzDateIsATimeThatExists() {
        #expect(PresignedURL.parseAmzDate("20261130T235959Z") == Date(timeIntervalSince1970: 1_796_083_199))
        for bad in [
            "20261130T250000Z", "20261132T000000Z", "20260229T000000Z", "2026+130T000000Z", "20261130T23-159Z",
            "20261130T236000Z", "2026113OT000000Z",
        ] {
            #expect(PresignedURL.parseAmzDate(bad) == nil, "\(bad)")
        }
        #expect(PresignedURL.parseAmzDate("20280229T000000Z") != nil)
    }

    @Test func manifestGuideDialect() throws {
        let m = try decode(
            TourManifest.self,
            """
            {"tourId":"550e8400-e29b-41d4-a716-446655440000","language":"en","version":1,
             "audio":[{"pointId":"770e8400-e29b-41d4-a716-446655440010","order":1,"url":"https://cdn.example.com/audio/point-1.mp3?signature=x","expiresAt":"2024-01-01T12:00:00Z","sizeBytes":5242880}],
             "images":[{"pointId":"770e8400-e29b-41d4-a716-446655440010","url":"https://cdn.example.com/images/point-1.jpg?signature=y","expiresAt":"2024-01-01T12:00:00Z","sizeBytes":1048576}],
             "subtitles":[],
             "offlineMap":{"tilesUrlTemplate":"https://tiles.example.org/{z}/{x}/{y}.pbf","bounds":{"north":45.564211,"south":45.364211,"east":9.291383,"west":9.091383},"recommendedZoomLevels":[14,15,16]}}
            """)
        #expect(m.audio[0].url == "https://cdn.example.com/audio/point-1.mp3?signature=x")
        #expect(m.audio[0].sizeBytes == 5_242_880)
        #expect(m.expiresAt == ISO8601.parse("2024-01-01T12:00:00Z"))
        #expect(m.images[0].sizeBytes == 1_048_576)
        #expect(m.subtitles.isEmpty)
    }

    @Test func manifestFingerprintIgnoresSignaturesButSeesNewFiles() throws {
        func manifest(_ sig: String, size: Int) throws -> TourManifest {
            try decode(
                TourManifest.self,
                """
                {"tourId":"t","language":"en","version":1,"audio":[{"pointId":"p1","fileUrl":"https://h/a.mp3?X-Amz-Signature=\(sig)","fileSizeBytes":\(size)}],"images":[],"subtitles":[]}
                """)
        }
        #expect(try manifest("one", size: 10).fingerprint == manifest("two", size: 10).fingerprint)
        #expect(try manifest("one", size: 10).fingerprint != manifest("one", size: 11).fingerprint)
    }

    // MARK: auth

    static let jwt: String = {
        // {"alg":"HS256","typ":"JWT"} . {"sub":"u1","email":"a@b.c","iat":1777626000,"exp":1777626900}
        func b64url(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return b64url(#"{"alg":"HS256","typ":"JWT"}"#) + "."
            + b64url(#"{"sub":"u1","email":"a@b.c","iat":1777626000,"exp":1777626900}"#) + ".sig"
    }()

    @Test func loginLiveDialectReadsExpiryFromToken() throws {
        let s = try decode(
            AuthSession.self,
            """
            {"user":{"id":"u1","email":"a@b.c","name":"Ada","preferredLanguage":"it"},"tokens":{"accessToken":"\(Self.jwt)","refreshToken":"r1"}}
            """)
        #expect(s.user?.email == "a@b.c" && s.user?.preferredLanguage == "it")
        #expect(s.tokens.refreshToken == "r1")
        #expect(s.tokens.accessExpiresAt == Date(timeIntervalSince1970: 1_777_626_900))
        #expect(!s.tokens.needsRefresh(at: Date(timeIntervalSince1970: 1_777_626_000)))
        #expect(s.tokens.needsRefresh(at: Date(timeIntervalSince1970: 1_777_626_850)))  // a minute ahead
    }

    @Test func refreshLiveDialect() throws {
        let t = try decode(AuthTokens.self, #"{"accessToken":"\#(Self.jwt)","refreshToken":"r2"}"#)
        #expect(t.accessToken == Self.jwt && t.refreshToken == "r2")
    }

    /// A token is what an `Authorization` header can carry, and no larger than a token gets: 150 kB
    /// of one made every request's head so large that a connection reset while it was written
    /// stopped the process (exit 132), and one holding CR LF was sent on every request, failed each
    /// time, and was printed in the error. Refused where the answer is read (the service's bad data).
    @Test func aTokenAHeaderCannotCarryIsRefused() throws {
        for bad in [
            String(repeating: "e", count: TourLimits.tokenLength + 1), "x\\r\\nX-Injected: 1", "two words", "",
            "tab\\there",
        ] {
            for json in [
                #"{"accessToken":"\#(bad)","refreshToken":"r"}"#, #"{"accessToken":"a","refreshToken":"\#(bad)"}"#,
            ] {
                #expect(throws: DecodingError.self, "\(json.prefix(60))") { try decode(AuthTokens.self, json) }
            }
        }
        let longest = String(repeating: "e", count: TourLimits.tokenLength)
        #expect(
            try decode(AuthTokens.self, #"{"accessToken":"\#(longest)","refreshToken":"a.b-c_d~e+f/g="}"#).accessToken
                == longest)
    }

    /// A token's `exp` or `iat` past the year 9999 (or negative) is no date a person can be shown:
    /// read as unknown. Shown, 1e15 was "The session lasts until  unless used."
    @Test(arguments: ["1e15", "253402300800", "-1", "1e308"])
    func aTokenDateNoCalendarHoldsIsUnknown(_ exp: String) throws {
        func segment(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let token = segment(#"{"alg":"HS256"}"#) + "." + segment(#"{"sub":"u","exp":\#(exp),"iat":\#(exp)}"#) + ".sig"
        let claims = try #require(JWTClaims(token: token))
        #expect(claims.expiresAt == nil && claims.issuedAt == nil)
        let fine = segment(#"{"alg":"HS256"}"#) + "." + segment(#"{"sub":"u","exp":253402300799}"#) + ".sig"
        #expect(JWTClaims(token: fine)?.expiresAt == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test func tokensOlderDialectSnakeCaseWithExpiresIn() throws {
        let before = Date()
        let t = try decode(AuthTokens.self, #"{"access_token":"opaque","refresh_token":"r","expires_in":900}"#)
        #expect(t.accessToken == "opaque" && t.refreshToken == "r")
        let exp = try #require(t.accessExpiresAt)
        #expect(exp.timeIntervalSince(before) >= 899 && exp.timeIntervalSince(before) < 905)
        let nested = try decode(
            AuthSession.self,
            #"{"user":{"id":"u","email":"e@x.y"},"tokens":{"access_token":"a2","refresh_token":"r2"}}"#)
        #expect(nested.tokens.accessToken == "a2")
    }

    @Test func meLiveDialect() throws {
        let me = try decode(
            UserProfile.self,
            """
            {"id":"u1","email":"a@b.c","name":null,"preferredLanguage":"en","mailingListOptIn":false,
             "createdAt":"2026-05-01T09:00:00.000Z","updatedAt":"2026-05-02T10:00:00+02:00"}
            """)
        #expect(me.createdAt == Date(timeIntervalSince1970: 1_777_626_000))
        #expect(me.updatedAt == Date(timeIntervalSince1970: 1_777_708_800))
        #expect(me.mailingListOptIn == false && me.name == nil)
    }

    // MARK: vouchers

    @Test func voucherLiveDialect() throws {
        let v = try decode(
            VoucherRedemption.self,
            #"{"success":true,"message":"Access granted","tourId":"t9","tourTitle":"Secret Walk"}"#)
        #expect(v.success && v.tourID == "t9" && v.tourTitle == "Secret Walk" && v.message == "Access granted")
    }

    @Test func voucherGuideDialect() throws {
        let v = try decode(
            VoucherRedemption.self,
            """
            {"voucher":{"code":"PREMIUM2024","tourId":"550e8400-e29b-41d4-a716-446655440000","validUntil":"2024-12-31T23:59:59Z"},
             "tour":{"id":"550e8400-e29b-41d4-a716-446655440000","slug":"premium-milan-tour","title":"Premium Milan Experience"},
             "accessGranted":true}
            """)
        #expect(v.success && v.code == "PREMIUM2024")
        #expect(v.tourID == "550e8400-e29b-41d4-a716-446655440000" && v.tourSlug == "premium-milan-tour")
        #expect(v.validUntil == ISO8601.parse("2024-12-31T23:59:59Z"))
    }

    @Test func myToursBothShapes() throws {
        let live = try decode(
            GrantedTours.self,
            #"{"tours":[{"tourId":"t1","tourTitle":"A","tourSlug":"a","grantedAt":"2026-05-01T09:00:00.000Z"}]}"#)
        #expect(live.tours.map(\.tourID) == ["t1"] && live.tours[0].grantedAt != nil)
        let bare = try decode(GrantedTours.self, #"[{"id":"t2","title":"B","slug":"b"}]"#)
        #expect(bare.tours.map(\.tourSlug) == ["b"])
    }

    // MARK: errors, health

    @Test func errorBodyMessageStringOrArray() throws {
        let one = try decode(APIErrorBody.self, #"{"statusCode":404,"message":"Tour not found","error":"Not Found"}"#)
        #expect(one.statusCode == 404 && one.summary == "Tour not found")
        let many = try decode(
            APIErrorBody.self,
            #"{"statusCode":400,"message":["property foo should not exist","code must be a string"],"error":"Bad Request"}"#
        )
        #expect(many.messages.count == 2)
        #expect(many.summary == "property foo should not exist; code must be a string")
        let guide = try decode(
            APIErrorBody.self, #"{"statusCode":403,"message":"Access denied. Redeem a voucher to access this tour."}"#)
        #expect(guide.error == nil && guide.summary.hasPrefix("Access denied"))
    }

    /// The service's words are one line each: a newline in them would let the service print a
    /// line of its own under walkscape's name ("walkscape: FAKE").
    @Test func errorBodyWordsAreOneLineEach() throws {
        for json in [
            #"{"statusCode":400,"message":"line1\nwalkscape: FAKE","error":"Bad\r\nRequest"}"#,
            #"{"statusCode":400,"message":["line1\nwalkscape: FAKE"],"error":"Bad\r\nRequest"}"#,
        ] {
            let body = try decode(APIErrorBody.self, json)
            #expect(!body.summary.contains("\n") && !body.summary.contains("\r"), "\(body.summary)")
            #expect(body.summary.hasPrefix("line1") && body.summary.hasSuffix("walkscape: FAKE"))
            #expect(!(body.error ?? "").contains("\n"))
        }
    }

    @Test func health() throws {
        #expect(try decode(HealthStatus.self, #"{"status":"ok","info":{"db":{"status":"up"}}}"#).isOK)
        #expect(try !decode(HealthStatus.self, #"{"status":"error"}"#).isOK)
    }

    @Test func timestampsEncodeAsISO8601WithZoneAndMilliseconds() throws {
        struct Stamp: Encodable { var timestamp: Date }
        let data = try WalkscapeJSON.encoder().encode(Stamp(timestamp: Date(timeIntervalSince1970: 1_777_626_000.25)))
        #expect(String(decoding: data, as: UTF8.self) == #"{"timestamp":"2026-05-01T09:00:00.250Z"}"#)
        #expect(ISO8601.parse("2026-05-01T09:00:00") == nil)  // no zone: refused, not guessed
        // A day that does not exist is no time (it was read as the days after).
        #expect(ISO8601.parse("2026-02-30T00:00:00Z") == nil)
        #expect(ISO8601.parse("2026-13-01T00:00:00Z") == nil)
        #expect(ISO8601.parse("2024-02-29T00:00:00.000Z") != nil)
        #expect(ISO8601.parse("+2026-05-01T09:00:00Z") == nil)
    }
}
