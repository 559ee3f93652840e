import FileAccess
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the memory a crowd of connections freed back to the system once they are gone.
///
/// glibc keeps what its threads' arenas freed: after 3,000 connections each with a request body
/// under way closed, the server's RSS stayed at 328 MB (39 MB before them) for as long as it ran;
/// `malloc_trim` brought it back to 47 MB. So every `every`, the server trims when many connections
/// closed since the last look (`closedAtLeast` fewer open than the most open at once since), or when
/// its RSS grew by `grownAtLeast` since the last trim (big answers, a burst of requests). Memory
/// still in use is not given back; the RSS after a trim is where the next growth counts from, so a
/// server that holds what it uses is not trimmed again and again. A trim walks the allocator's free
/// lists (milliseconds for hundreds of megabytes); it happens at most once a tick.
struct MemoryReturn: Service {
    static let every = Duration.seconds(2)
    static let closedAtLeast = 64
    static let grownAtLeast = 32 << 20
    /// A trim that gave back this much is logged (info): trims follow a crowd leaving or growth,
    /// so they are rare, and a crowd of 30 MiB was given back in steps under 32 MiB, unlogged.
    static let loggedAtLeast = 1 << 20

    let connections: ConnectionCounts
    let logger: Logger

    /// What the last look saw and did: the RSS after the last trim.
    struct Rule {
        var afterLastTrim: Int

        /// Whether to trim, given the most connections open at once since the last look, the
        /// connections open now, and the RSS now.
        func shouldTrim(peak: Int, open: Int, resident: Int) -> Bool {
            peak - open >= MemoryReturn.closedAtLeast || resident - afterLastTrim >= MemoryReturn.grownAtLeast
        }
    }

    func run() async throws {
        var rule = Rule(afterLastTrim: Self.residentBytes() ?? 0)
        while !Task.isShuttingDownGracefully {
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: Self.every) })) != nil else {
                return
            }
            let (peak, open) = connections.takePeak()
            guard let resident = Self.residentBytes(), rule.shouldTrim(peak: peak, open: open, resident: resident)
            else { continue }
            AllocatorTuning.giveBackFreedMemory()
            let after = Self.residentBytes() ?? resident
            rule.afterLastTrim = after
            if resident - after >= Self.loggedAtLeast {
                logger.info(
                    "gave freed memory back to the system",
                    metadata: [
                        "rss-before": "\(resident >> 20) MiB", "rss-after": "\(after >> 20) MiB",
                        "connections": "\(open) open, \(peak) at most since the last look",
                    ])
            }
        }
    }

    /// The process's resident set in bytes (`/proc/self/statm`'s second field, in pages).
    static func residentBytes() -> Int? {
        guard let statm = try? InputFile.contents(of: "/proc/self/statm") else { return nil }
        let fields = statm.split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
