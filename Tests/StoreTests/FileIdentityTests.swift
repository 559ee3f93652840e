import Testing
@testable import TourStore

@Suite struct FileIdentityTests {
    @Test func aSignedURLAndTheSameURLSignedLaterAreOneFile() {
        let a = FileIdentity(url: "https://media.example.org/t/en/01.mp3?X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400&X-Amz-Signature=aa", size: 10)
        let b = FileIdentity(url: "https://media.example.org/t/en/01.mp3?X-Amz-Date=20260502T090000Z&X-Amz-Expires=86400&X-Amz-Signature=bb", size: 10)
        #expect(a == b)
        #expect(a.partName == b.partName)
    }
}
