import ArgumentParser
import Foundation
import TourModel
import WalkscapeServer

/// `walkscape-server voucher add CODE --tour ID [--max-uses N] [--valid-until DATE]`, `voucher list`.
struct VoucherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voucher", abstract: "Manage voucher codes.", subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add (or replace) a voucher code that unlocks a tour.",
            discussion: """
                The code is stored trimmed and upper-cased, as redemption normalises what users type.
                Without --tour the voucher is not tied to a tour: redeeming it is a 400, as on the live service.

                Examples:
                  walkscape-server voucher add FLORENCE24 --tour 3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10
                  walkscape-server voucher add ONCE --tour TOUR-ID --max-uses 1 --valid-until 2026-12-31
                """)

        @Argument(help: "The code.")
        var code: String

        @Option(help: ArgumentHelp("The tour it unlocks.", valueName: "tour-id"))
        var tour: String?

        // Unconditional: `--max-uses -5` is a bad number to refuse as such, not a missing value.
        @Option(
            name: .customLong("max-uses"), parsing: .unconditional,
            help: "How many redemptions it allows (default: unlimited).")
        var maxUses: Int?

        @Option(
            name: .customLong("valid-until"),
            help: ArgumentHelp(
                "Last moment it works: an ISO-8601 time with a zone, or a date (valid through that day, UTC).",
                valueName: "date"))
        var validUntil: String?

        @OptionGroup var data: DataOption

        func validate() throws {
            guard !VoucherStore.normalize(code: code).isEmpty else {
                throw ValidationError("the code must not be empty")
            }
            if let maxUses, maxUses < 1 { throw ValidationError("--max-uses must be at least 1") }
            if let validUntil {
                guard let date = Admin.parseValidUntil(validUntil) else {
                    throw ValidationError(
                        "--valid-until: \"\(validUntil)\" is neither a date that exists (YYYY-MM-DD) nor an ISO-8601 time with a zone"
                    )
                }
                guard Admin.validUntilRange.contains(date) else {
                    throw ValidationError("--valid-until must be a day from 1970-01-01 to 9999-12-31")
                }
            }
            if let tour, tour.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--tour must not be empty")
            }
        }

        func run() throws {
            let admin = try Admin(dataDirectory: try data.directory())
            let voucher = try admin.addVoucher(
                code: code, tourID: tour, maxUses: maxUses,
                validUntil: validUntil.flatMap(Admin.parseValidUntil))
            var line = "voucher \(voucher.code)"
            line += voucher.tourId.map { " unlocks tour \($0)" } ?? " (not tied to a tour)"
            if let maxUses = voucher.maxUses { line += ", at most \(maxUses) use(s)" }
            if let date = voucher.validUntil { line += ", valid until \(ISO8601.format(date))" }
            AdminOutput.line(line)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List voucher codes and their use.")

        @OptionGroup var data: DataOption

        func run() throws {
            let admin = try Admin(dataDirectory: try data.directory(), existing: true)
            for v in try admin.vouchers() {
                let uses = v.maxUses.map { "\(v.usedCount)/\($0)" } ?? "\(v.usedCount)"
                AdminOutput.line(
                    "\(v.code)\t\(v.tourId ?? "-")\tuses \(uses)\tvalid until \(v.validUntil.map(ISO8601.format) ?? "-")"
                )
            }
        }
    }
}
