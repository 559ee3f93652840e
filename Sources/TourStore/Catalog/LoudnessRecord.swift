import FileAccess
import Foundation
import GRDB
import TourModel

/// A row of `loudness`: a narration blob's loudness, measured once when it was downloaded (or when
/// a tour installed by an older walkscape was first walked or linted), kept with the blob's hash.
/// A row measured by another method than today's (`Loudness.method`) keeps serving its figures;
/// `lint` and a download measure it again (for what today's method finds besides), and replace it.
struct LoudnessRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loudness"
    var sha256: String
    var integrated: Double?
    var truePeak: Double?
    var clippedRuns: Int
    var seconds: Double
    var damage: String?
    var method: String?
    var leadingSilence: Double?
    var trailingSilence: Double?
    var onlyChannel: Int?
    var measuredAt: Date

    init(sha256: String, _ loudness: Loudness, measuredAt: Date) {
        self.sha256 = sha256
        integrated = loudness.integrated
        truePeak = loudness.truePeak
        clippedRuns = loudness.clippedRuns
        seconds = loudness.seconds
        damage = loudness.damage
        method = Loudness.method
        leadingSilence = loudness.leadingSilence
        trailingSilence = loudness.trailingSilence
        onlyChannel = loudness.onlyChannel
        self.measuredAt = measuredAt
    }

    var loudness: Loudness {
        Loudness(
            integrated: integrated, truePeak: truePeak, clippedRuns: clippedRuns, seconds: seconds, damage: damage,
            leadingSilence: leadingSilence, trailingSilence: trailingSilence, onlyChannel: onlyChannel)
    }
}

extension TourStore {
    /// Every blob's loudness measured by today's method (`Loudness.method`), by SHA-256: what
    /// `lint` and a download take as known. A row of an older method has the same figures but may
    /// lack what today's finds (a narration's damage): they measure it again.
    public func knownLoudness() throws(StoreError) -> [String: Loudness] {
        try read { db in try Self.loudness(db, todaysMethodOnly: true) }
    }

    /// Every blob's loudness, by SHA-256; with `todaysMethodOnly`, only rows of today's method.
    /// The figures (levels, lengths) of every method are the same measurement, so what shows or
    /// plays them takes any row: a tour installed before a method changed keeps its levels.
    static func loudness(_ db: Database, todaysMethodOnly: Bool = false) throws -> [String: Loudness] {
        var known: [String: Loudness] = [:]
        let rows =
            todaysMethodOnly
            ? LoudnessRecord.filter(Column("method") == Loudness.method) : LoudnessRecord.all()
        for record in try rows.fetchAll(db) { known[record.sha256] = record.loudness }
        return known
    }

    /// Keeps loudness measured outside a download (a tour installed before walkscape measured it).
    /// A blob collected meanwhile is skipped: its row would name nothing.
    public func recordLoudness(_ values: [String: Loudness], now: Date = Date()) throws(StoreError) {
        guard !values.isEmpty else { return }
        try write { db in
            for (sha, loudness) in values.sorted(by: { $0.key < $1.key })
            where try BlobRecord.exists(db, key: sha) {
                try LoudnessRecord(sha256: sha, loudness, measuredAt: now).upsert(db)
            }
        }
    }

    /// The SHA-256 of a file's bytes, as blobs are named (a tour folder's narration is looked up
    /// in the loudness cache by it).
    /// Only a regular file is read (`InputFile`): a FIFO would block and a device never end.
    public static func contentHash(_ url: URL) throws(StoreError) -> String {
        let fd: Int32
        do { fd = try InputFile.open(url.path) } catch { throw StoreError(.io, error.message) }
        defer { close(fd) }
        return try BlobStore.hash(descriptor: fd, path: url.path).sha256
    }
}
