import Foundation

/// The two shapes the service's JSON comes in: what the running service sends (`live`, the
/// contract) and what its published guide documents (`guide`). Decoders read both without being
/// told; encoders (the local server, tests) must be told which one to write.
public enum APIDialect: String, Sendable, Hashable, CaseIterable {
    case live
    case guide
}
