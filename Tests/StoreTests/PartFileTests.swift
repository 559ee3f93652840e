import Crypto
import Foundation
import TestSupport
import Testing

@testable import TourStore

#if canImport(Glibc)
    import Glibc
#endif

/// A part file holds exactly the bytes appended, in order, whether they go to the disk by direct
/// I/O (block-aligned stretches from its own buffers) or through the page cache; what is on disk is
/// always a prefix of them; a stopped transfer keeps what it received.
@Suite struct PartFileTests {
    /// Deterministic bytes, different at every offset of a stretch and across stretches.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// Appends `data` in chunks of the sizes given, cycling through them.
    static func append(_ data: [UInt8], to part: PartFile, chunks: [Int]) throws {
        var offset = 0
        var index = 0
        while offset < data.count {
            let n = min(chunks[index % chunks.count], data.count - offset)
            try data.withUnsafeBytes { try part.append(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
            offset += n
            index += 1
        }
    }

    /// Whether this file system lets a file be opened for direct I/O (tmpfs does not).
    static func directIOPossible(in folder: URL) -> Bool {
        let probe = folder.appendingPathComponent("probe")
        FileManager.default.createFile(atPath: probe.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: probe) }
        guard let writer = DirectWriter(path: probe.path, fallback: -1) else { return false }
        _ = writer
        return true
    }

    @Test(arguments: [true, false])
    func theFileHoldsExactlyWhatWasAppendedAcrossStretchesAndAnUnalignedEnd(direct: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("a.part")
        // Two and a half stretches and an odd tail, in chunk sizes that never line up with a block.
        let data = Self.bytes(2 * DirectWriter.capacity + DirectWriter.capacity / 2 + 777, seed: 1)
        let part = try PartFile(url: url, direct: direct)
        if direct && Self.directIOPossible(in: folder.url) { #expect(part.isDirect) }
        if !direct { #expect(!part.isDirect) }
        try Self.append(data, to: part, chunks: [65_536, 1, 4095, 300_001, 16_384])
        #expect(part.length == Int64(data.count))
        try part.sync()
        #expect(try Data(contentsOf: url) == Data(data))
        // Every stretch and offset was aligned as direct I/O wants: none was refused and written
        // through the page cache instead.
        if direct && Self.directIOPossible(in: folder.url) { #expect(part.isDirect) }
    }

    /// A resumed part file ends in the middle of a block: that block is read back and written again
    /// with what follows, and nothing before it changes.
    @Test(arguments: [4095, 4096, 5000, DirectWriter.capacity + 3])
    func aResumedFileEndingMidBlockGoesOnFromItsLastByte(kept: Int) throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("b.part")
        let data = Self.bytes(kept + DirectWriter.capacity + 10_000, seed: 2)
        try Data(data[..<kept]).write(to: url)
        let part = try PartFile(url: url)
        #expect(part.length == Int64(kept))
        var hasher = SHA256()
        try part.hashPrefix(part.length, into: &hasher)
        try Self.append(Array(data[kept...]), to: part, chunks: [10_000, 65_536])
        hasher.update(data: Data(data[kept...]))
        try part.sync()
        #expect(try Data(contentsOf: url) == Data(data))
        #expect(Data(hasher.finalize()) == Data(SHA256.hash(data: Data(data))))
        if Self.directIOPossible(in: folder.url) { #expect(part.isDirect, "a direct write was refused") }
    }

    /// What is on disk while bytes are still being appended is a prefix of them (a kill keeps it,
    /// and the next download resumes after it); a part file let go without its flush (a transfer
    /// stopped by Ctrl-C or an error) writes what it held.
    @Test(arguments: [true, false])
    func whatIsOnDiskIsAlwaysAPrefixAndAStoppedTransferKeepsEverything(direct: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("c.part")
        let data = Self.bytes(3 * DirectWriter.capacity + 12_345, seed: 3)
        do {
            let part = try PartFile(url: url, direct: direct)
            var offset = 0
            while offset < data.count {
                let n = min(200_000, data.count - offset)
                try data.withUnsafeBytes { try part.append(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
                offset += n
                let onDisk = try Data(contentsOf: url)
                #expect(onDisk.count <= offset)
                #expect(onDisk == Data(data[..<onDisk.count]), "not a prefix after \(offset) bytes")
            }
        }
        #expect(try Data(contentsOf: url) == Data(data))
    }

    /// A full disk stops the appending with the system's words, and leaves the file and `length`
    /// agreeing on what is on it, a prefix of what was appended: the next download resumes from
    /// there. A small file system of its own, when this machine lets the test mount one.
    @Test(arguments: [true, false])
    func aFullDiskLeavesTheFileAtAPrefixAndItsLengthAgreeing(direct: Bool) throws {
        let folder = try TemporaryDirectory()
        let small = folder.url.appendingPathComponent("small")
        guard Mounts.available else { return }
        try Mounts.tmpfs(at: small, size: "1536k")
        defer { Mounts.unmount(small, lazily: true) }
        let url = small.appendingPathComponent("e.part")
        let data = Self.bytes(3 * DirectWriter.capacity, seed: 6)
        let part = try PartFile(url: url, direct: direct)
        var failure: StoreError?
        do {
            try Self.append(data, to: part, chunks: [65_536])
            try part.sync()
        } catch let error as StoreError {
            failure = error
        }
        let error = try #require(failure, "3 MiB fitted in a 1.5 MiB file system")
        #expect(error.message.contains("No space left on device"), "\(error.message)")
        let onDisk = try Data(contentsOf: url)
        #expect(Int64(onDisk.count) == part.length)
        #expect(onDisk.count < data.count && onDisk == Data(data[..<onDisk.count]))
    }

    /// Starting over forgets what the buffers held as well as what is on disk.
    @Test func startingOverForgetsEverythingBeforeIt() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("d.part")
        let part = try PartFile(url: url)
        try Self.append(Self.bytes(DirectWriter.capacity + 5_000, seed: 4), to: part, chunks: [70_000])
        try part.truncate(to: 0)
        #expect(part.length == 0)
        let fresh = Self.bytes(DirectWriter.capacity / 3, seed: 5)
        try Self.append(fresh, to: part, chunks: [8192])
        try part.sync()
        #expect(try Data(contentsOf: url) == Data(fresh))
    }

    /// A part file let go hands its buffers back, and the next one writes from them: exactly its
    /// own bytes, none of those the buffers held before (an unaligned end, a resumed file's tail
    /// read back into a used buffer). No more than the pool's limit are kept.
    @Test func buffersLetGoAreReusedAndTheirOldBytesNeverReachTheNextFile() throws {
        let folder = try TemporaryDirectory()
        guard Self.directIOPossible(in: folder.url) else { return }
        let pool = DirectBuffers(keepingAtMost: 2)
        let first = folder.url.appendingPathComponent("first.part")
        do {
            let part = try PartFile(url: first, buffers: pool)
            #expect(pool.keptCount == 0)
            // Both buffers full of bytes another file must never receive.
            try Self.append(
                [UInt8](repeating: 0xEE, count: 2 * DirectWriter.capacity + 100), to: part, chunks: [65_536])
            try part.sync()
        }
        #expect(pool.keptCount == 2)

        let second = folder.url.appendingPathComponent("second.part")
        let kept = Self.bytes(5_000, seed: 6)
        try Data(kept).write(to: second)
        let rest = Self.bytes(DirectWriter.capacity + 3_333, seed: 7)
        do {
            let part = try PartFile(url: second, buffers: pool)
            #expect(pool.keptCount == 0, "the kept buffers were taken")
            try Self.append(rest, to: part, chunks: [12_345])
            try part.sync()
            #expect(part.isDirect, "a direct write was refused")
        }
        #expect(try Data(contentsOf: second) == Data(kept + rest))

        // Three part files at once: six buffers, two of them kept when all are let go.
        var parts: [PartFile] = []
        for name in ["x", "y", "z"] {
            parts.append(try PartFile(url: folder.url.appendingPathComponent(name), buffers: pool))
        }
        parts.removeAll()
        #expect(pool.keptCount == 2)
    }
}
