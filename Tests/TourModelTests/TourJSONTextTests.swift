import Foundation
import TestSupport
import Testing

@testable import TourModel

/// tour.json as text: what a curator's editor can produce that JSON objects cannot show
/// (a key written twice) and numbers Foundation's decoder reports without a path.
struct TourJSONTextTests {
    /// A valid three-point tour as text; `{POINT2}` is replaced with the second point's extra
    /// fields, `{ORDER2}` with its order.
    static let template = #"""
        {
          "format": 1, "id": "tour-1", "slug": "text-walk", "defaultLanguage": "en",
          "languages": { "en": { "title": "Text Walk" }, "it": { "title": "Passeggiata" } },
          "points": [
            { "id": "p1", "order": 1, "location": { "lat": 44.4938, "lng": 11.3430 }, "triggerRadiusMeters": 25,
              "content": { "en": { "title": "First", "audio": "media/en/01.mp3" } } },
            { "id": "p2", "order": 2, "location": { "lat": 44.4949, "lng": 11.3465 }, "triggerRadiusMeters": 30,
              "content": { "en": { "title": "Second" }, "it": { "title": "Secondo" } } },
            { "id": "p3", "order": {ORDER3}, "location": { "lat": 44.4952, "lng": 11.3480 }, "triggerRadiusMeters": 40,
              "content": { "en": { {CONTENT3} } } }
          ]
        }
        """#

    func load(
        order3: String = "3", content3: String = #""title": "Third""#,
        edit: (String) -> String = { $0 }
    ) throws -> String? {
        let dir = try TemporaryDirectory(prefix: "tour-text")
        try dir.write("media/en/01.mp3", "x")
        let text = edit(
            Self.template.replacingOccurrences(of: "{ORDER3}", with: order3)
                .replacingOccurrences(of: "{CONTENT3}", with: content3))
        try dir.write("tour.json", text)
        do {
            _ = try TourFolder.load(from: dir.url)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func templateLoads() throws {
        #expect(try load() == nil)
    }

    @Test func aKeyWrittenTwiceIsRefusedNamingTheKeyAndWhereItIs() throws {
        #expect(
            try load(content3: #""title": "Third", "description": "x", "title": "Dritte""#)
                == #"tour.json: points[2].content.en: "title" appears twice"#)
    }

    @Test func keysAreComparedAfterUnescaping() throws {
        #expect(
            try load(content3: #""title": "Third", "tit\u006Ce": "Dritte""#)
                == #"tour.json: points[2].content.en: "title" appears twice"#)
        #expect(
            try load(content3: #""\u0074itle": "Third", "title": "Dritte""#)
                == #"tour.json: points[2].content.en: "title" appears twice"#)
    }

    @Test func aTopLevelKeyWrittenTwiceIsRefused() throws {
        #expect(
            try load(edit: { $0.replacingOccurrences(of: #""format": 1,"#, with: #""format": 1, "slug": "other","#) })
                == #"tour.json: "slug" appears twice"#)
    }

    @Test func theSameKeyInDifferentObjectsIsFine() throws {
        // Every point has "id", "order", "title": one set of keys per object, not per file.
        #expect(try load() == nil)
        #expect(JSONDuplicateKeys.first(in: Array(#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#.utf8)) == nil)
    }

    @Test func duplicateScanFindsPathsThroughArraysAndIgnoresBracesInStrings() {
        let text = #"{"x": "{\"y\": [1, 2]}", "list": [[0], {"k": 1}, {"k": 1, "m": "}", "k": 2}]}"#
        #expect(JSONDuplicateKeys.first(in: Array(text.utf8)) == .init(path: "list[2]", key: "k"))
        // An escaped surrogate pair is one character, equal to the same character unescaped.
        #expect(JSONDuplicateKeys.first(in: Array(#"{"\ud83d\ude00": 1, "😀": 2}"#.utf8)) == .init(path: "", key: "😀"))
        // Not JSON: no answer, the decoder reports the syntax error.
        #expect(JSONDuplicateKeys.first(in: Array(#"{"a": 1, "a"#.utf8)) == nil)
    }

    @Test func aFractionalOrderSaysTheFieldMustBeAnInteger() throws {
        #expect(try load(order3: "1.5") == "tour.json: points[2].order: must be an integer, not 1.5")
        #expect(try load(order3: "1e30") == "tour.json: points[2].order: must be an integer, not 1e+30")
        #expect(try load(order3: "1e400") == "tour.json: points[2].order: is a number out of range")
        #expect(try load(order3: "3.0") == nil)  // a whole number written with a fraction is that number
    }

    @Test func wrongTypesAndNullsNameTheFieldAndWhatItMustBe() throws {
        #expect(try load(order3: #""3""#) == "tour.json: points[2].order: must be an integer")
        #expect(try load(order3: "null") == "tour.json: points[2].order: must be an integer, not null")
        #expect(
            try load(edit: { $0.replacingOccurrences(of: #""lat": 44.4952"#, with: #""lat": "44.4952""#) })
                == "tour.json: points[2].location.lat: must be a number")
        #expect(
            try load(edit: { $0.replacingOccurrences(of: #""lat": 44.4952"#, with: #""lat": 1e999"#) })
                == "tour.json: points[2].location.lat: is a number out of range")
        #expect(
            try load(edit: {
                $0.replacingOccurrences(of: #""triggerRadiusMeters": 40"#, with: #""triggerRadiusMeters": -4"#)
            })
                == "tour.json: points[2].triggerRadiusMeters: -4.0 must be greater than 0 and at most 1000 metres")
        #expect(
            try load(content3: #""title": null"#) == "tour.json: points[2].content.en.title: must be a string, not null"
        )
        #expect(
            try load(edit: { $0.replacingOccurrences(of: #""format": 1"#, with: #""format": 1.5"#) })
                == "tour.json: format: must be an integer, not 1.5")
    }

    @Test func aDocumentThatIsNotAnObjectSaysSo() throws {
        #expect(try load(edit: { _ in "[1, 2]" }) == "tour.json: the top level must be an object")
    }
}
