import Testing

@testable import TourModel

struct TerminalWidthTests {
    @Test func emojiAndEastAsianCharactersAreTwoColumnsAndMarksNone() {
        #expect(TerminalWidth.of("Duomo") == 5)
        #expect(TerminalWidth.of("🏛") == 1 || TerminalWidth.of("🏛") == 2)  // text-style by default
        #expect(TerminalWidth.of("🏛️") == 2)  // with the emoji variation selector
        #expect(TerminalWidth.of("🚶") == 2)
        #expect(TerminalWidth.of("東京") == 4)
        #expect(TerminalWidth.of("Café") == 4)
        #expect(TerminalWidth.of("Cafe\u{301}") == 4)  // a combining accent joins its letter
    }

    @Test func paddingNeverCutsAndTruncationCountsColumns() {
        #expect(TerminalWidth.padded("+101:10:20", to: 9) == "+101:10:20")
        #expect(TerminalWidth.padded("+12:05", to: 9) == "+12:05   ")
        #expect(TerminalWidth.padded("🚶 Go", to: 8) == "🚶 Go   ")
        #expect(TerminalWidth.truncated("東京の古い寺と庭", to: 7) == "東京の…")
        #expect(TerminalWidth.of(TerminalWidth.truncated("東京の古い寺と庭", to: 7)) <= 7)
        #expect(TerminalWidth.truncated("short", to: 28) == "short")
    }
}
