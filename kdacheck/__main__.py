from kdacheck.main import main

main()
