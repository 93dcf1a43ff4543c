module cuzk.example/prove

go 1.19
