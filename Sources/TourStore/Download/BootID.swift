import Foundation

/// Which boot of the machine this is. A part file written during this boot holds every byte that
/// was written to it (the kernel's page cache survives a killed process); after a reboot its tail
/// may not have reached the disk, so it is started again.
enum BootID {
    static func current() -> String {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return "unknown"
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
