@_exported import GreenroomProtocol
@_exported import GreenroomStorage
@_exported import GreenroomSQLite
@_exported import GreenroomPostgres
@_exported import GreenroomCore
@_exported import GreenroomMedia
@_exported import GreenroomCapabilities
