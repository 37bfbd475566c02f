@_exported import GreenroomProtocol
@_exported import GreenroomStorage
