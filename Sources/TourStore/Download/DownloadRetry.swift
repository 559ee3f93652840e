import TourAPI

/// A download is long and its few API calls (details, points, manifests, a renewed manifest)
/// matter more than any one catalog request: when the client's own attempts at one of them all
/// fail with something temporary (a burst of 5xx, broken connections), it is tried again a few
/// times, after a pause, before the download gives up. An unreachable service fails at once.
public enum DownloadRetry {
    public static let rounds = 3

    public static func call<T: Sendable>(_ body: () async throws(APIError) -> T) async throws(APIError) -> T {
        var round = 1
        while true {
            do {
                return try await body()
            } catch  where error.kind == .temporary && round < rounds {
                do { try await Task.sleep(for: .milliseconds(500 << (round - 1))) } catch {
                    throw APIError(.local, "cancelled")
                }
                round += 1
            }
        }
    }
}
