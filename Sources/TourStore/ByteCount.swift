import Foundation

/// Byte counts as people read them: `512 B`, `4.1 kB`, `12.3 MB`, `1.20 GB` (powers of 1000, as
/// disks and download tools say them).
public enum ByteCount {
    public static func format(_ bytes: Int64) -> String {
        let value = Double(bytes)
        switch abs(value) {
        case ..<1000: return "\(bytes) B"
        case ..<1_000_000: return String(format: "%.1f kB", value / 1000)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1_000_000)
        default: return String(format: "%.2f GB", value / 1_000_000_000)
        }
    }
}
